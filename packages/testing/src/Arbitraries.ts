/**
 * fast-check arbitraries for every core type. Each value is built with the core's own
 * constructors, so it is valid by construction and deeply frozen, and it survives its
 * codec (`Codecs.X`) unchanged: JSON values hold no `-0`, objects have plain
 * prototypes and keys that cannot clash with `__proto__`. Strings, arrays and numbers
 * shrink towards small, readable values. `Options` bound the sizes (history length,
 * steps, tool calls, JSON depth) and aim the generators at a user's own tools.
 *
 * @since 0.1.0
 */
export {
  agentError,
  message,
  stopSignal,
  toolCall,
  toolExecution,
  toolName,
  usage,
} from "./arbitraries/messages.js"
export {
  commonToolNames,
  executionStatus,
  finishReason,
  json,
  jsonObject,
  metadata,
  stopReason,
  text,
  trigger,
  type Options,
} from "./arbitraries/base.js"
export { inferenceRequest, inferenceResponse, modelOptions, responseFormat, toolDefinition } from "./arbitraries/inference.js"
export { agentState, blockedHookContext, hookContext, hookContextOf, step, type WithRunContext } from "./arbitraries/state.js"
