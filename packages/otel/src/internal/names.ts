// Every name this package emits, in one place. The OpenTelemetry GenAI semantic
// conventions are "Development" status (names may still change): pinned here, checked
// against @opentelemetry/semantic-conventions 1.45.0 by test/names.test.ts.

/** Operation names (`gen_ai.operation.name`), also the first word of span names. */
export const Operation = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const

/** Span and metric attributes of the GenAI conventions, and the general ones they use. */
export const Attr = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  requestModel: "gen_ai.request.model",
  requestTemperature: "gen_ai.request.temperature",
  requestTopP: "gen_ai.request.top_p",
  requestTopK: "gen_ai.request.top_k",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestSeed: "gen_ai.request.seed",
  requestStopSequences: "gen_ai.request.stop_sequences",
  outputType: "gen_ai.output.type",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageReasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolDescription: "gen_ai.tool.description",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  systemInstructions: "gen_ai.system_instructions",
  tokenType: "gen_ai.token.type",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
} as const

/** hookline's own attributes and events (no convention covers hooks). */
export const Hookline = {
  hookEvent: "hookline.hook",
  hookName: "hookline.hook.name",
  hookTrigger: "hookline.hook.trigger",
  hookOutcome: "hookline.hook.outcome",
  hookDurationMs: "hookline.hook.duration_ms",
  hookSpan: "hookline.hook",
  runStatus: "hookline.run.status",
  runStopReason: "hookline.run.stop_reason",
  runSuspended: "hookline.run.suspended",
  runPendingCalls: "hookline.run.pending_calls",
  runResumed: "hookline.run.resumed",
  stopSignalEvent: "hookline.stop_signal",
  stopReason: "hookline.stop.reason",
  stopSource: "hookline.stop.source",
  stopMessage: "hookline.stop.message",
  toolStatus: "hookline.tool.status",
  attempt: "hookline.attempt",
  attempts: "hookline.attempts",
} as const

/** The conventions' metrics. */
export const Metric = {
  operationDuration: "gen_ai.client.operation.duration",
  tokenUsage: "gen_ai.client.token.usage",
} as const

/** Values of `gen_ai.token.type`, `gen_ai.tool.type` and `error.type` this package sets. */
export const Value = {
  input: "input",
  output: "output",
  function: "function",
  blocked: "blocked",
  interrupted: "interrupted",
  other: "_OTHER",
} as const

/** The instrumentation scope. */
export const scope = "@hookline/otel"
