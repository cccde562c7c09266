// Tool calls, messages, stop signals, errors and tool executions.
import {
  AgentError,
  Message,
  StopSignal,
  ToolCall,
  ToolExecution,
  Usage,
} from "@hookline/core"
import fc from "fast-check"
import { commonToolNames, epochMs, identifier, json, sizes, stopReason, text, trigger, type Options } from "./base.js"

/**
 * A tool name: one of `options.toolNames`, else a common name or an identifier.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolName = (options: Options = {}): fc.Arbitrary<string> =>
  options.toolNames !== undefined && options.toolNames.length > 0
    ? fc.constantFrom(...options.toolNames)
    : fc.oneof(fc.constantFrom(...commonToolNames), identifier)

/** @internal */
export const toolCallId = fc.nat(99).map((n) => `call_${n}`)

/**
 * Token usage, each side at most `maxTokens`; about one in four also reports cached
 * input and reasoning tokens (parts of the input and output).
 *
 * @since 0.1.0
 * @category constructors
 */
export const usage = (options: Options = {}): fc.Arbitrary<Usage> => {
  const n = fc.nat(sizes(options).maxTokens)
  const plain = fc.tuple(n, n).map(([input, output]) => Usage.make(input, output))
  const detailed = fc.tuple(n, n, fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }))
    .map(([input, output, c, r]) =>
      Usage.make(input, output, { cachedInputTokens: Math.floor(input * c), reasoningTokens: Math.floor(output * r) })
    )
  return fc.oneof({ arbitrary: plain, weight: 3 }, { arbitrary: detailed, weight: 1 })
}

/**
 * A tool call (`ToolCall.make`): id `call_<n>`, a tool name, JSON arguments.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCall = (options: Options = {}): fc.Arbitrary<ToolCall> =>
  fc
    .tuple(toolCallId, toolName(options), options.toolArguments ?? json(options))
    .map(([id, name, args]) => ToolCall.make({ id, name, arguments: args }))

/**
 * A message of any role; assistant messages carry up to `maxToolCalls` tool calls.
 *
 * @since 0.1.0
 * @category constructors
 */
export const message = (options: Options = {}): fc.Arbitrary<Message> => {
  const t = text(options)
  return fc.oneof(
    t.map(Message.user),
    t.map(Message.system),
    fc.tuple(t, fc.array(toolCall(options), { maxLength: sizes(options).maxToolCalls })).map(([content, calls]) =>
      Message.assistant(content, calls)
    ),
    fc
      .tuple(toolCallId, toolName(options), t, fc.boolean())
      .map(([toolCallId, toolName, content, isError]) => Message.tool({ toolCallId, toolName, content, isError })),
  )
}

/**
 * A stop signal of any reason; sources are identifiers (no `:`), so they never clash
 * with a hook name such as `guard:steps_limit`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stopSignal = (options: Options = {}): fc.Arbitrary<StopSignal> =>
  fc.tuple(stopReason(), text(options), identifier)
    .map(([reason, msg, source]) => StopSignal.make(reason, msg, source))


/**
 * Any `AgentError`, made by its constructor.
 *
 * @since 0.1.0
 * @category constructors
 */
export const agentError = (options: Options = {}): fc.Arbitrary<AgentError> => {
  const t = text(options)
  const name = toolName(options)
  return fc.oneof(
    fc.tuple(identifier, trigger(), t).map(([h, tr, c]) => AgentError.hookFailed(h, tr, c)),
    fc.tuple(identifier, trigger()).map(([h, tr]) => AgentError.hookIsEffectful(h, tr)),
    fc
      .tuple(t, fc.option(fc.integer({ min: 400, max: 599 }), { nil: undefined }), fc.boolean())
      .map(([m, status, retryable]) => AgentError.inferenceFailed(m, { status, retryable })),
    fc.tuple(toolCallId, name, t).map(([id, n, c]) => AgentError.toolFailed(id, n, c)),
    fc.tuple(toolCallId, name, fc.nat(60_000)).map(([id, n, ms]) => AgentError.toolTimedOut(id, n, ms)),
    fc.tuple(toolCallId, name, t).map(([id, n, r]) => AgentError.toolBlocked(id, n, r)),
    fc.tuple(toolCallId, name, identifier, t).map(([id, n, p, d]) => AgentError.toolArgumentsInvalid(id, n, p, d)),
    fc.tuple(toolCallId, name).map(([id, n]) => AgentError.unknownTool(id, n)),
    fc.tuple(identifier, t).map(([p, d]) => AgentError.invalidConfiguration(p, d)),
    fc.tuple(identifier, t).map(([p, d]) => AgentError.decodeFailed(p, d)),
    t.map((m) => AgentError.aborted(m)),
  )
}

// The error of a failed execution of `call`.
const toolError = (call: ToolCall, kind: number, detail: string, ms: number): ToolExecution.ToolError => {
  switch (kind) {
    case 0:
      return AgentError.toolFailed(call.id, call.name, detail)
    case 1:
      return AgentError.toolTimedOut(call.id, call.name, ms)
    case 2:
      return AgentError.unknownTool(call.id, call.name)
    default:
      return AgentError.toolArgumentsInvalid(call.id, call.name, "", detail)
  }
}

/** @internal an execution of a given call: success, failure or blocked (in shrink order). */
export const executionOf = (options: Options): fc.Arbitrary<(call: ToolCall) => ToolExecution> => {
  const t = text(options)
  const duration = fc.nat(60_000)
  // What a call spent on models (a subagent): mostly nothing.
  const spent = fc.option(usage(options), { nil: undefined, freq: 4 })
  // Now and then one a journal gave back (a resumed run); a shrunk value is not one.
  const replayed = fc.nat(7).map((n) => n === 7)
  const made = fc.oneof(
    fc.tuple(options.toolOutput ?? json(options), epochMs, duration, spent).map(([output, at, ms, used]) => (call: ToolCall) =>
      ToolExecution.withUsage(ToolExecution.success(call, output, at, at + ms), used)
    ),
    fc.tuple(fc.nat(3), t, epochMs, duration, spent).map(([kind, detail, at, ms, used]) => (call: ToolCall) =>
      ToolExecution.withUsage(ToolExecution.failure(call, toolError(call, kind, detail, ms), at, at + ms), used)
    ),
    fc.tuple(t, epochMs).map(([reason, at]) => (call: ToolCall) => ToolExecution.blocked(call, reason, at)),
  )
  return fc.tuple(made, replayed).map(([of, r]) => (r ? (call: ToolCall) => ToolExecution.asReplayed(of(call)) : of))
}

/**
 * A tool execution (success, failure or blocked) of a generated tool call.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolExecution = (options: Options = {}): fc.Arbitrary<ToolExecution> =>
  fc.tuple(toolCall(options), executionOf(options)).map(([call, of]) => of(call))
