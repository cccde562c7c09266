/**
 * What the loop asks the model: system prompt, messages, tool definitions, response
 * format and model options. Edits at BeforeInference change this call only.
 *
 * @since 0.1.0
 */
import * as AppendLog from "./AppendLog.js"
import type { JsonObject } from "./Json.js"
import type { Message } from "./Message.js"
import { finiteOptional } from "./internal/finite.js"
import { deepFreeze } from "./internal/immer.js"

/**
 * A tool as the model sees it: `parameters` is a JSON Schema object.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolDefinition {
  readonly name: string
  readonly description: string
  readonly parameters: JsonObject
}

/**
 * @since 0.1.0
 * @category models
 */
export type ResponseFormat =
  | { readonly type: "text" }
  | {
    readonly type: "json"
    readonly schema?: JsonObject | undefined
    readonly name?: string | undefined
    readonly description?: string | undefined
  }

/**
 * Sampling options passed to the model as given; `providerOptions` goes to the
 * provider untouched.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelOptions {
  readonly temperature?: number | undefined
  readonly topP?: number | undefined
  readonly topK?: number | undefined
  readonly maxOutputTokens?: number | undefined
  readonly seed?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly providerOptions?: JsonObject | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface InferenceRequest {
  readonly systemPrompt: string
  readonly messages: AppendLog.AppendLog<Message>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly responseFormat?: ResponseFormat | undefined
  readonly options: ModelOptions
}

/**
 * The fields of a request as users write them: messages may be any array.
 *
 * @since 0.1.0
 * @category models
 */
export interface InferenceRequestInput {
  readonly systemPrompt?: string | undefined
  readonly messages?: AppendLog.AppendLog<Message> | Iterable<Message> | undefined
  readonly tools?: ReadonlyArray<ToolDefinition> | undefined
  readonly responseFormat?: ResponseFormat | undefined
  readonly options?: ModelOptions | undefined
}

const noTools: ReadonlyArray<ToolDefinition> = Object.freeze([])
const noOptions: ModelOptions = Object.freeze({})

/**
 * A frozen request; an `AppendLog` of messages is shared, not copied.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: InferenceRequestInput): InferenceRequest =>
  Object.freeze({
    systemPrompt: input.systemPrompt ?? "",
    messages: input.messages === undefined ? AppendLog.empty<Message>() : AppendLog.fromIterable(deepFreezeEach(input.messages)),
    tools: input.tools === undefined ? noTools : deepFreeze(input.tools),
    responseFormat: input.responseFormat === undefined ? undefined : deepFreeze(input.responseFormat),
    options: input.options === undefined ? noOptions : frozenOptions(checkedOptions(input.options)),
  })

// Frozen through: deepFreeze stops at a frozen node, and a configuration may hand over a
// frozen copy of the options' shell (AgentLoop.make does) over the caller's own
// stopSequences and providerOptions. The loop calls make once per configuration (its
// later drafts reuse the options make took), so the two checks cost no step anything.
const frozenOptions = (options: ModelOptions): ModelOptions => {
  deepFreeze(options.stopSequences)
  deepFreeze(options.providerOptions)
  return deepFreeze(options)
}

/**
 * @internal `make` for the loop's draft request, from parts it holds frozen all through
 * (the state's prompt, history and format; the tools' frozen definitions) and options
 * `make` already took (checked and frozen) for this run's configuration: the same
 * object `make` would build, without the walk or the options' checks it repeated on
 * every step.
 */
export const fromFrozenParts = (
  systemPrompt: string,
  messages: AppendLog.AppendLog<Message>,
  tools: ReadonlyArray<ToolDefinition>,
  responseFormat: ResponseFormat | undefined,
  options: ModelOptions,
): InferenceRequest => Object.freeze({ systemPrompt, messages, tools, responseFormat, options })

// The numbers of the model options are sent to the provider and JSON has no NaN or
// Infinity: refused here (the builder's and a hook's options are checked by the codec).
// Each key with the name an error gives it, made once (not a string per key per request).
const numericOptions = (["temperature", "topP", "topK", "maxOutputTokens", "seed"] as const).map((key) => [key, `options.${key}`] as const)
const checkedOptions = (options: ModelOptions): ModelOptions => {
  for (const [key, where] of numericOptions) finiteOptional(where, options[key])
  return options
}

// A log's messages are frozen already; only plain arrays from users need freezing.
const deepFreezeEach = (messages: AppendLog.AppendLog<Message> | Iterable<Message>) =>
  AppendLog.isAppendLog(messages) ? messages : Array.from(messages, deepFreeze)

/**
 * @since 0.1.0
 * @category guards
 */
export const isInferenceRequest = (u: unknown): u is InferenceRequest =>
  typeof u === "object" && u !== null && Object.isFrozen(u)
  && "messages" in u && AppendLog.isAppendLog(u.messages)
  && "systemPrompt" in u && typeof u.systemPrompt === "string"
  && "tools" in u && Array.isArray(u.tools)
  && "options" in u && typeof u.options === "object" && u.options !== null
