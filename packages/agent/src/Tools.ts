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
import { Cause, Clock, Duration, Effect, Result } from "effect"
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
const makeContext = (toolCall: ToolCall, state: AgentState) => {
  let controller: AbortController | undefined
  let aborted = false
  const context: Tool.ToolContext = Object.freeze({
    toolCall,
    state,
    get signal(): AbortSignal {
      if (controller === undefined) {
        controller = new AbortController()
        if (aborted) controller.abort()
      }
      return controller.signal
    },
  })
  const abort = Effect.sync(() => {
    aborted = true
    controller?.abort()
  })
  return { context, abort }
}

const run = (
  tool: Tool.Tool,
  toolCall: ToolCall,
  state: AgentState,
): Effect.Effect<JsonValue, ToolExecution.ToolError> => {
  const { id, name } = toolCall
  const invoke = (args: unknown): Effect.Effect<JsonValue, ToolExecution.ToolError> => {
    const { abort, context } = makeContext(toolCall, state)
    let execution: Effect.Effect<unknown, ToolExecution.ToolError> = tool.execute(args, context).pipe(
      Effect.mapError((cause) => AgentError.toolFailed(id, name, cause)),
      Effect.onInterrupt(() => abort),
    )
    const timeout = tool.timeout
    if (timeout !== undefined && Duration.isFinite(timeout)) {
      execution = Effect.timeoutOrElse(execution, {
        duration: timeout,
        orElse: () => Effect.fail(AgentError.toolTimedOut(id, name, Duration.toMillis(timeout))),
      })
    }
    return Effect.flatMap(execution, (output) => {
      const json = toJson(output)
      return Result.isSuccess(json) ? Effect.succeed(json.success) : Effect.fail(AgentError.toolFailed(id, name, json.failure))
    })
  }
  return tool.validate(toolCall.arguments).pipe(
    Effect.mapError((error) => AgentError.toolArgumentsInvalid(id, name, error.path, error.message)),
    Effect.flatMap(invoke),
  )
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
  Effect.flatMap(Clock.currentTimeMillis, (startedAt) => {
    const tool = tools.byName.get(toolCall.name)
    if (tool === undefined) {
      const error = AgentError.unknownTool(toolCall.id, toolCall.name)
      return Effect.map(Clock.currentTimeMillis, (completedAt) => ToolExecution.failure(toolCall, error, startedAt, completedAt))
    }
    return Effect.matchCauseEffect(run(tool, toolCall, context.state), {
      onSuccess: (output) =>
        Effect.map(Clock.currentTimeMillis, (completedAt) => ToolExecution.success(toolCall, output, startedAt, completedAt)),
      onFailure: (cause) => {
        // An aborted run is not a tool result.
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const failed = Cause.findError(cause)
        const error = Result.isSuccess(failed)
          ? failed.success
          : AgentError.toolFailed(toolCall.id, toolCall.name, Result.getOrElse(Cause.findDefect(cause), () => Cause.squash(cause)))
        return Effect.map(Clock.currentTimeMillis, (completedAt) => ToolExecution.failure(toolCall, error, startedAt, completedAt))
      },
    })
  })
