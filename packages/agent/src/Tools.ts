/**
 * The set of an agent's tools, and tool execution. `execute` never fails: an unknown
 * tool, invalid arguments, a tool that throws, rejects, fails, dies or times out, and
 * an output that is not JSON all end as a failed `ToolExecution` that goes back to the
 * model. Interruption (an aborted run) is never turned into a result: it propagates,
 * and the tool's `signal` is aborted.
 *
 * @since 0.1.0
 */
import { AgentError, ToolExecution, type AgentState, type InferenceRequest, type JsonValue, type ToolCall } from "@hookline/core"
import { Cause, Clock, Duration, Effect, Exit, Result } from "effect"
import * as Tool from "./Tool.js"

/**
 * Tools by name, and their definitions for the model in the order they were given.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tools {
  readonly byName: ReadonlyMap<string, Tool.Tool>
  readonly definitions: ReadonlyArray<InferenceRequest.ToolDefinition>
}

/**
 * No tools.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Tools = Object.freeze({ byName: new Map<string, Tool.Tool>(), definitions: Object.freeze([]) })

/**
 * A frozen set of tools. Throws a `HooklineError` carrying `InvalidConfiguration` at
 * `tools[i]` for an entry that is not a tool, and at `tools[i].name` for a name
 * already taken.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (tools: ReadonlyArray<Tool.Tool>): Tools => {
  if (!Array.isArray(tools)) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("tools", "expected an array of tools"))
  }
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
  return Object.freeze({ byName, definitions: Object.freeze(definitions) })
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isTools = (u: unknown): u is Tools =>
  typeof u === "object" && u !== null && "byName" in u && u.byName instanceof Map
  && "definitions" in u && Array.isArray(u.definitions)

/**
 * The tool named `name`, if there is one.
 *
 * @since 0.1.0
 * @category getters
 */
export const get = (tools: Tools, name: string): Tool.Tool | undefined => tools.byName.get(name)

const notJson = (cause: unknown): string => `the output is not JSON (${AgentError.messageOf(cause)})`

// What JSON.stringify makes of the output: undefined is null, a Date its ISO string.
const toJson = (output: unknown): Result.Result<JsonValue, string> => {
  switch (typeof output) {
    case "undefined":
      return Result.succeed(null)
    case "string":
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
  return text === undefined ? Result.fail(notJson("it serializes to nothing")) : Result.succeed(JSON.parse(text) as JsonValue)
}

// The context's signal is made when the tool first reads it: most tools never do.
// (Private fields stay writable on a frozen instance.)
class Context implements Tool.ToolContext {
  #controller: AbortController | undefined
  #aborted = false
  constructor(readonly toolCall: ToolCall, readonly state: AgentState) {
    Object.freeze(this)
  }
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort()
    }
    return this.#controller.signal
  }
  abort(): void {
    this.#aborted = true
    this.#controller?.abort()
  }
}

const settle = (toolCall: ToolCall, output: unknown, startedAt: number, completedAt: number): ToolExecution.ToolExecution => {
  const json = toJson(output)
  return Result.isSuccess(json)
    ? ToolExecution.success(toolCall, json.success, startedAt, completedAt)
    : ToolExecution.failure(toolCall, AgentError.toolFailed(toolCall.id, toolCall.name, json.failure), startedAt, completedAt)
}

const failed = (toolCall: ToolCall, error: ToolExecution.ToolError, startedAt: number) =>
  Effect.map(Clock.currentTimeMillis, (completedAt) => ToolExecution.failure(toolCall, error, startedAt, completedAt))

// A failure cause as the tool's error; interruption (an aborted run) propagates.
const onCause = (toolCall: ToolCall, startedAt: number, toError: (e: unknown) => ToolExecution.ToolError) =>
(cause: Cause.Cause<unknown>): Effect.Effect<ToolExecution.ToolExecution> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  const error = Cause.findError(cause)
  return failed(
    toolCall,
    Result.isSuccess(error)
      ? toError(error.success)
      : AgentError.toolFailed(toolCall.id, toolCall.name, Result.getOrElse(Cause.findDefect(cause), () => Cause.squash(cause))),
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
    onSuccess: (output) => Effect.map(Clock.currentTimeMillis, (completedAt) => settle(toolCall, output, startedAt, completedAt)),
    onFailure: onCause(toolCall, startedAt, (e) => e as ToolExecution.ToolError),
  })
}

const invoke = (
  tool: Tool.Tool,
  toolCall: ToolCall,
  state: AgentState,
  args: unknown,
  startedAt: number,
  now: () => number,
): ToolExecution.ToolExecution | Effect.Effect<ToolExecution.ToolExecution> => {
  const context = new Context(toolCall, state)
  if (tool.timeout !== undefined) return awaitOutput(tool, toolCall, context, tool.execute(args, context), startedAt)
  let out: unknown
  try {
    out = tool.run(args, context)
  } catch (cause) {
    return ToolExecution.failure(toolCall, AgentError.toolFailed(toolCall.id, toolCall.name, cause), startedAt, now())
  }
  if (Effect.isEffect(out)) return awaitOutput(tool, toolCall, context, out as Effect.Effect<unknown, unknown>, startedAt)
  if (Tool.isPromiseLike(out)) {
    const promise = out
    return awaitOutput(tool, toolCall, context, Effect.tryPromise({ try: () => promise, catch: (e) => e }), startedAt)
  }
  return settle(toolCall, out, startedAt, now())
}

/**
 * Starts one tool call: a finished execution when everything was synchronous (the
 * validator answered at once and the tool returned a plain value), else the Effect
 * that finishes it. Never fails; interruption propagates. `now` reads the clock
 * (epoch ms) for `startedAt`/`completedAt`.
 *
 * @since 0.1.0
 * @category execution
 */
export const start = (
  tools: Tools,
  toolCall: ToolCall,
  state: AgentState,
  now: () => number,
): ToolExecution.ToolExecution | Effect.Effect<ToolExecution.ToolExecution> => {
  const startedAt = now()
  const tool = tools.byName.get(toolCall.name)
  if (tool === undefined) {
    return ToolExecution.failure(toolCall, AgentError.unknownTool(toolCall.id, toolCall.name), startedAt, now())
  }
  const { id, name } = toolCall
  const invalidArguments = (e: unknown) => {
    const error = e as { readonly path: string; readonly message: string }
    return AgentError.toolArgumentsInvalid(id, name, error.path, error.message)
  }
  const validated = tool.validate(toolCall.arguments)
  if (Exit.isExit(validated)) {
    if (Exit.isSuccess(validated)) return invoke(tool, toolCall, state, validated.value, startedAt, now)
    const error = Cause.findError(validated.cause)
    if (Result.isSuccess(error)) return ToolExecution.failure(toolCall, invalidArguments(error.success), startedAt, now())
  }
  // An asynchronous validator (a Standard Schema may return a Promise), or one that died.
  return Effect.matchCauseEffect(validated, {
    onSuccess: (args) =>
      Clock.clockWith((clock) => {
        const result = invoke(tool, toolCall, state, args, startedAt, () => clock.currentTimeMillisUnsafe())
        return Effect.isEffect(result) ? result : Effect.succeed(result)
      }),
    onFailure: onCause(toolCall, startedAt, invalidArguments),
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
  context: { readonly state: AgentState },
): Effect.Effect<ToolExecution.ToolExecution> =>
  Clock.clockWith((clock) => {
    const result = start(tools, toolCall, context.state, () => clock.currentTimeMillisUnsafe())
    return Effect.isEffect(result) ? result : Effect.succeed(result)
  })
