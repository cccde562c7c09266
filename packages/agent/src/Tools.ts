/**
 * The set of an agent's tools, and tool execution. `execute` never fails: an unknown
 * tool, invalid arguments, a tool that throws, rejects, fails, dies or times out, and
 * an output that is not JSON all end as a failed `ToolExecution` that goes back to the
 * model. Interruption (an aborted run) is never turned into a result: it propagates,
 * and the tool's `signal` is aborted. An output longer than the limit
 * (`maxOutputLength`) is cut and marked: the model gets a bounded text.
 *
 * @since 0.1.0
 */
import { AgentError, Json, Message, ToolExecution, Truncation, type AgentState, type InferenceRequest, type JsonValue, type ToolCall } from "@hookline/core"
import { Cause, Clock, Duration, Effect, Exit, Result } from "effect"
import { isEffect } from "./internal/isEffect.js"
import { FrozenIndex, isIndex } from "./internal/frozenIndex.js"
import { LazySignal } from "./internal/lazySignal.js"
import * as Arguments from "./internal/toolArguments.js"
import * as Tool from "./Tool.js"

/**
 * Tools by name, and their definitions for the model in the order they were given.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tools {
  /** Read-only, really: it is not a Map, and nothing can add to it or remove from it. */
  readonly byName: ReadonlyMap<string, Tool.Tool>
  readonly definitions: ReadonlyArray<InferenceRequest.ToolDefinition>
  /** The longest output a tool gives the model, unless the tool sets its own. */
  readonly maxOutputLength: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The longest output the model gets from a tool, in characters (UTF-16 code units)
   * of the text it reads: a string output as it is, anything else as its JSON text.
   * A longer output becomes a string: its first `maxOutputLength` characters and a
   * `truncationMarker`. A tool's own `maxOutputLength` wins. Default
   * `defaultMaxOutputLength`; one past `Json.maxStringLength` less 128 cuts there.
   */
  readonly maxOutputLength?: number | undefined
}

/**
 * The default output limit: `Truncation.defaultMaxLength`, 100,000 characters, about
 * 25,000 tokens. Larger than any ordinary tool result, small enough to fit a 128k-token
 * context with room to spare; a megabyte of output (about 250,000 tokens) would
 * overflow most models' context and fail the next call, losing the run rather than the
 * tail of one result. Error messages are bounded by the same limit.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxOutputLength = Truncation.defaultMaxLength

/**
 * What follows a cut output: `…[truncated: 10485760 characters, limit 100000]`, with
 * the length of the whole text and the limit (`Truncation.marker`).
 *
 * @since 0.1.0
 * @category truncation
 */
export const truncationMarker: (length: number, limit: number) => string = Truncation.marker

/**
 * Whether a tool output was cut by the output limit; if so, the length of the whole
 * text and the limit (`Truncation.of`).
 *
 * @since 0.1.0
 * @category truncation
 */
export const truncation = (output: JsonValue): { readonly length: number; readonly limit: number } | undefined =>
  Truncation.of(output)

/**
 * What the content of a cancellation marker begins with.
 *
 * @since 0.1.0
 * @category cancellation
 */
export const cancellationPrefix = "Cancelled: "

/**
 * The cancellation marker of a call that never ran: the tool message the loop commits
 * for it (an error result, `Cancelled: <why>`) when the run or its step ended before
 * the call was answered, so that every tool call the model made has exactly one tool
 * message (providers reject a request with an unanswered call).
 *
 * @since 0.1.0
 * @category cancellation
 */
export const cancelled = (toolCall: ToolCall, why: string): Message.ToolMessage =>
  Message.tool({ toolCallId: toolCall.id, toolName: toolCall.name, content: `${cancellationPrefix}${why}`, isError: true })

/**
 * Whether a message is a cancellation marker.
 *
 * @since 0.1.0
 * @category cancellation
 */
export const isCancelled = (message: Message.Message): boolean =>
  message.role === "tool" && message.isError && message.content.startsWith(cancellationPrefix)

/**
 * No tools.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Tools = Object.freeze({
  byName: new FrozenIndex<string, Tool.Tool>([]),
  definitions: Object.freeze([]),
  maxOutputLength: defaultMaxOutputLength,
})

/**
 * A frozen set of tools. Throws a `HooklineError` carrying `InvalidConfiguration` at
 * `tools[i]` for an entry that is not a tool, at `tools[i].name` for a name already
 * taken, and at `options.maxOutputLength` for a limit that is not a positive integer.
 *
 * @example
 * ```ts
 * const tools = Tools.make([readFile, search], { maxOutputLength: 20_000 })
 * AgentLoop.make({ interceptor, tools })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (tools: ReadonlyArray<Tool.Tool>, options: Options = {}): Tools => {
  if (!Array.isArray(tools)) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("tools", "expected an array of tools"))
  }
  if (typeof options !== "object" || options === null) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("options", "expected an object"))
  }
  const maxOutputLength = Tool.maxOutputLengthOf(options.maxOutputLength, "options.maxOutputLength") ?? defaultMaxOutputLength
  const byName = new Map<string, Tool.Tool>()
  const definitions: Array<InferenceRequest.ToolDefinition> = []
  tools.forEach((tool: unknown, i) => {
    if (!Tool.isTool(tool)) {
      throw new AgentError.HooklineError(AgentError.invalidConfiguration(`tools[${i}]`, "expected a tool made with Tool.make"))
    }
    if (byName.has(tool.name)) {
      throw new AgentError.HooklineError(
        AgentError.invalidConfiguration(`tools[${i}].name`, `the name "${tool.name}" is already taken by another tool`),
      )
    }
    byName.set(tool.name, tool)
    definitions.push(Tool.definition(tool))
  })
  return Object.freeze({ byName: new FrozenIndex(byName), definitions: Object.freeze(definitions), maxOutputLength })
}

/**
 * Tools that may change during a run: `base`, then the tools each source gives now,
 * in order (a name already taken is left out: the agent's own tools win). Every read
 * of `byName` or `definitions` asks the sources; the index is rebuilt only when a
 * source returns a different array. A source that throws keeps its last list.
 *
 * @since 0.1.0
 * @category constructors
 */
export const live = (base: Tools, sources: ReadonlyArray<() => ReadonlyArray<Tool.Tool>>): Tools => {
  let seen: ReadonlyArray<ReadonlyArray<Tool.Tool>> = []
  let current: Tools = base
  const read = (source: () => ReadonlyArray<Tool.Tool>, i: number): ReadonlyArray<Tool.Tool> => {
    try {
      const list = source()
      return Array.isArray(list) ? list : seen[i] ?? []
    } catch {
      return seen[i] ?? []
    }
  }
  const now = (): Tools => {
    const lists = sources.map(read)
    if (lists.length === seen.length && lists.every((list, i) => list === seen[i])) return current
    seen = lists
    const byName = new Map(base.byName)
    const definitions = [...base.definitions]
    for (const list of lists) {
      for (const tool of list) {
        if (!Tool.isTool(tool) || byName.has(tool.name)) continue
        byName.set(tool.name, tool)
        definitions.push(Tool.definition(tool))
      }
    }
    current = Object.freeze({ byName: new FrozenIndex(byName), definitions: Object.freeze(definitions), maxOutputLength: base.maxOutputLength })
    return current
  }
  return Object.freeze({
    get byName() {
      return now().byName
    },
    get definitions() {
      return now().definitions
    },
    maxOutputLength: base.maxOutputLength,
  })
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isTools = (u: unknown): u is Tools =>
  typeof u === "object" && u !== null && "byName" in u && isIndex(u.byName)
  && "definitions" in u && Array.isArray(u.definitions)

/**
 * The tool named `name`, if there is one.
 *
 * @since 0.1.0
 * @category getters
 */
export const get = (tools: Tools, name: string): Tool.Tool | undefined => tools.byName.get(name)

const notJson = (cause: unknown): string => `the output is not JSON (${AgentError.messageOf(cause)})`

// The longest limit taken: a cut output (its first `limit` characters and a marker of
// at most 80) is a string of the state, which holds none past `Json.maxStringLength`.
const longestOutput = Json.maxStringLength - 128

// The first `limit` characters of `text` (a surrogate pair is never split) and the
// marker, as a string of its own: it does not keep a 10 MB output alive.
const cut = (text: string, limit: number): string => Truncation.truncate(text, limit)

// What JSON.stringify makes of the output (undefined is null, a Date its ISO string),
// bounded: the text the model would read is at most `limit` characters, else the
// output is that text, cut and marked. An object output is serialized once; it is
// parsed back (a frozen copy) only when it fits.
const toJson = (output: unknown, limit: number): Result.Result<JsonValue, string> => {
  switch (typeof output) {
    case "undefined":
      return Result.succeed(null)
    case "string":
      return Result.succeed(output.length > limit ? cut(output, limit) : output)
    case "boolean":
      return Result.succeed(output)
    case "number":
      return Result.succeed(Number.isFinite(output) ? output : null)
    case "object":
      if (output === null) return Result.succeed(null)
      break
    default:
      return Result.fail(notJson(`a ${typeof output}`))
  }
  let text: string | undefined
  try {
    text = JSON.stringify(output)
  } catch (cause) {
    return Result.fail(notJson(cause))
  }
  if (text === undefined) return Result.fail(notJson("it serializes to nothing"))
  // A string (a Date's toJSON) is read as it is; anything else as its JSON text.
  const parsed = text.length > limit && text.charCodeAt(0) !== 34 ? undefined : (JSON.parse(text) as JsonValue)
  if (parsed === undefined) return Result.succeed(cut(text, limit))
  return typeof parsed === "string" && parsed.length > limit ? Result.succeed(cut(parsed, limit)) : Result.succeed(parsed)
}

// A tool that throws a 10 MB message gives the model a bounded one too.
const bounded = (error: ToolExecution.ToolError, limit: number): ToolExecution.ToolError =>
  error.message.length > limit ? Object.freeze({ ...error, message: cut(error.message, limit) }) : error

// The context's signal is made when the tool first reads it: most tools never do.
class Context extends LazySignal implements Tool.ToolContext {
  constructor(readonly toolCall: ToolCall, readonly state: AgentState, readonly runContext: unknown) {
    super()
    Object.freeze(this)
  }
  get idempotencyKey(): string {
    return `${this.state.id}:${this.toolCall.id}`
  }
}

const settle = (
  toolCall: ToolCall,
  output: unknown,
  limit: number,
  startedAt: number,
  completedAt: number,
): ToolExecution.ToolExecution => {
  const json = toJson(output, limit)
  return Result.isSuccess(json)
    ? ToolExecution.success(toolCall, json.success, startedAt, completedAt)
    : ToolExecution.failure(toolCall, AgentError.toolFailed(toolCall.id, toolCall.name, json.failure), startedAt, completedAt)
}

const failed = (toolCall: ToolCall, error: ToolExecution.ToolError, limit: number, startedAt: number) =>
  Effect.map(Clock.currentTimeMillis, (completedAt) => ToolExecution.failure(toolCall, bounded(error, limit), startedAt, completedAt))

// A failure cause as the tool's error; interruption (an aborted run) propagates.
const onCause = (toolCall: ToolCall, limit: number, startedAt: number, toError: (e: unknown) => ToolExecution.ToolError) =>
(cause: Cause.Cause<unknown>): Effect.Effect<ToolExecution.ToolExecution> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  const error = Cause.findError(cause)
  return failed(
    toolCall,
    Result.isSuccess(error)
      ? toError(error.success)
      : AgentError.toolFailed(toolCall.id, toolCall.name, Result.getOrElse(Cause.findDefect(cause), () => Cause.squash(cause))),
    limit,
    startedAt,
  )
}

// The asynchronous part: a Promise or an Effect the tool returned, or a call with a
// timeout (the call itself runs under the timer).
const awaitOutput = (
  tool: Tool.Tool,
  toolCall: ToolCall,
  context: Context,
  pending: Effect.Effect<unknown, unknown>,
  limit: number,
  startedAt: number,
): Effect.Effect<ToolExecution.ToolExecution> => {
  const { id, name } = toolCall
  let execution: Effect.Effect<unknown, ToolExecution.ToolError> = pending.pipe(
    Effect.mapError((cause) => AgentError.toolFailed(id, name, cause)),
    Effect.onInterrupt(() => Effect.sync(() => context.abort())),
  )
  const timeout = tool.timeout
  if (timeout !== undefined && Duration.isFinite(timeout)) {
    execution = Effect.timeoutOrElse(execution, {
      duration: timeout,
      orElse: () => Effect.fail(AgentError.toolTimedOut(id, name, Duration.toMillis(timeout))),
    })
  }
  return Effect.matchCauseEffect(execution, {
    onSuccess: (output) => Effect.map(Clock.currentTimeMillis, (completedAt) => settle(toolCall, output, limit, startedAt, completedAt)),
    onFailure: onCause(toolCall, limit, startedAt, (e) => e as ToolExecution.ToolError),
  })
}

const invoke = (
  tool: Tool.Tool,
  toolCall: ToolCall,
  state: AgentState,
  args: unknown,
  limit: number,
  startedAt: number,
  now: () => number,
  runContext: unknown,
): ToolExecution.ToolExecution | Effect.Effect<ToolExecution.ToolExecution> => {
  const context = new Context(toolCall, state, runContext)
  if (tool.timeout !== undefined) return awaitOutput(tool, toolCall, context, tool.execute(args, context), limit, startedAt)
  let out: unknown
  try {
    out = tool.run(args, context)
  } catch (cause) {
    return ToolExecution.failure(toolCall, bounded(AgentError.toolFailed(toolCall.id, toolCall.name, cause), limit), startedAt, now())
  }
  // The tool's output is anything: the id load only on an object or a function (what `Effect.isEffect` accepts).
  if ((typeof out === "object" || typeof out === "function") && out !== null && isEffect(out)) return awaitOutput(tool, toolCall, context, out as Effect.Effect<unknown, unknown>, limit, startedAt)
  if (Tool.isPromiseLike(out)) return awaitPromise(toolCall, context, out, limit, startedAt, now)
  return settle(toolCall, out, limit, startedAt, now())
}

// A Promise the tool returned (no timeout): settled where it resolves, in one step of
// the fiber (awaitOutput's chain of Effects costs microseconds per call). Interruption
// aborts the tool's signal and propagates, as in awaitOutput.
const awaitPromise = (
  toolCall: ToolCall,
  context: Context,
  promise: PromiseLike<unknown>,
  limit: number,
  startedAt: number,
  now: () => number,
): Effect.Effect<ToolExecution.ToolExecution> =>
  Effect.callback<ToolExecution.ToolExecution>((resume) => {
    const fail = (cause: unknown) =>
      resume(Effect.succeed(ToolExecution.failure(
        toolCall,
        bounded(AgentError.toolFailed(toolCall.id, toolCall.name, cause), limit),
        startedAt,
        now(),
      )))
    try {
      promise.then((output) => resume(Effect.succeed(settle(toolCall, output, limit, startedAt, now()))), fail)
    } catch (cause) {
      // A thenable whose `then` throws.
      fail(cause)
      return
    }
    return Effect.sync(() => context.abort())
  })

/** How many tool names an UnknownTool message lists. */
const listedNames = 20

/**
 * `UnknownTool` for a call, with the names the model may use in its message, so the
 * model can correct itself.
 */
const unknownTool = (tools: Tools, toolCall: ToolCall): AgentError.UnknownTool => {
  const error = AgentError.unknownTool(toolCall.id, toolCall.name)
  const names = [...tools.byName.keys()]
  const listed = names.slice(0, listedNames).map((n) => JSON.stringify(n)).join(", ")
  const more = names.length > listedNames ? ` and ${names.length - listedNames} more` : ""
  const known = names.length === 0 ? "the agent has no tools" : `the tools are ${listed}${more}`
  const asked = toolCall.name.length > 100 ? `${Json.excerpt(toolCall.name, 100)}` : JSON.stringify(toolCall.name)
  return Object.freeze({ ...error, message: `unknown tool ${asked}: ${known}` })
}

/**
 * Starts one tool call: a finished execution when everything was synchronous (the
 * validator answered at once and the tool returned a plain value), else the Effect
 * that finishes it. Never fails; interruption propagates. `now` reads the clock
 * (epoch ms) for `completedAt`, and for `startedAt` unless the caller has a reading;
 * `runContext` is the run's context, handed to the tool as `context.runContext`.
 *
 * @since 0.1.0
 * @category execution
 */
export const start = (
  tools: Tools,
  toolCall: ToolCall,
  state: AgentState,
  now: () => number,
  startedAt: number = now(),
  runContext?: unknown,
): ToolExecution.ToolExecution | Effect.Effect<ToolExecution.ToolExecution> => {
  const tool = tools.byName.get(toolCall.name)
  if (tool === undefined) return ToolExecution.failure(toolCall, unknownTool(tools, toolCall), startedAt, now())
  const { id, name } = toolCall
  // Arguments too deep or too large for any validator (or for the state's codec).
  const refusal = Arguments.refusalOf(toolCall)
  if (refusal !== undefined) {
    const error = AgentError.toolArgumentsInvalid(id, name, refusal.path, refusal.message)
    return ToolExecution.failure(refusal.toolCall, error, startedAt, now())
  }
  const limit = Math.min(tool.maxOutputLength ?? tools.maxOutputLength ?? defaultMaxOutputLength, longestOutput)
  const invalidArguments = (e: unknown) => {
    const error = e as { readonly path: string; readonly message: string }
    return AgentError.toolArgumentsInvalid(id, name, error.path, error.message)
  }
  const validated = tool.validate(toolCall.arguments)
  if (Exit.isExit(validated)) {
    if (Exit.isSuccess(validated)) return invoke(tool, toolCall, state, validated.value, limit, startedAt, now, runContext)
    const error = Cause.findError(validated.cause)
    if (Result.isSuccess(error)) return ToolExecution.failure(toolCall, invalidArguments(error.success), startedAt, now())
  }
  // An asynchronous validator (a Standard Schema may return a Promise), or one that died.
  return Effect.matchCauseEffect(validated, {
    onSuccess: (args) =>
      Clock.clockWith((clock) => {
        const result = invoke(tool, toolCall, state, args, limit, startedAt, () => clock.currentTimeMillisUnsafe(), runContext)
        return isEffect(result) ? result : Effect.succeed(result)
      }),
    onFailure: onCause(toolCall, limit, startedAt, invalidArguments),
  })
}

/**
 * Runs one tool call; never fails. The execution's `startedAt` and `completedAt` are
 * read from the Effect `Clock` (so `TestClock` drives them). If the fiber is
 * interrupted, the call is interrupted too (its `signal` aborts) and no execution is
 * returned.
 *
 * @since 0.1.0
 * @category execution
 */
export const execute = (
  tools: Tools,
  toolCall: ToolCall,
  context: { readonly state: AgentState; readonly runContext?: unknown },
): Effect.Effect<ToolExecution.ToolExecution> =>
  Clock.clockWith((clock) => {
    const now = () => clock.currentTimeMillisUnsafe()
    const result = start(tools, toolCall, context.state, now, now(), context.runContext)
    return isEffect(result) ? result : Effect.succeed(result)
  })
