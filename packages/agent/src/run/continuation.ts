// A conversation that goes on (`agent.continue`), pure: the caller's message and key
// checked (untrusted), and the stored run's state turned into the state the next turn
// runs from, or the reason it may not go on. Agent.ts acts on the plan.
import { AgentState, Json, Message } from "@hookline/core"
import { Data, Result } from "effect"

/**
 * A stored run that may not go on now: it is `running` (another call is carrying it
 * out, or one crashed: `agent.resume` finishes it), `suspended` (it waits on decisions:
 * resume it with them first) or `pending`. Nothing was written.
 *
 * @since 0.1.0
 * @category errors
 */
export class ContinuationRefused extends Data.TaggedError("ContinuationRefused")<{
  readonly runId: string
  readonly status: AgentState.ExecutionStatus
  readonly message: string
}> {}

/**
 * What a caller gave `agent.continue` is not a message it can take: `path` names the
 * part (`message`, `message.role`, `message.content`, `key`). Nothing was loaded or written.
 *
 * @since 0.1.0
 * @category errors
 */
export class ContinuationInvalid extends Data.TaggedError("ContinuationInvalid")<{
  readonly path: string
  readonly message: string
}> {}

/** The longest user message a continuation takes, in UTF-16 code units (1 Mi). */
export const maxContent = 1_048_576

/** The longest idempotency key. */
export const maxKey = 256

/** How many of a run's latest continuation keys it keeps (a repeat of an older one is a new turn). */
export const keptKeys = 32

/** Where a run keeps the keys of its latest continuations (`state.metadata`). */
export const keysField = "hookline:continuations"

/** A checked continuation: the user message to append, and its idempotency key. */
export interface Checked {
  readonly message: Message.UserMessage
  readonly key: string | undefined
}

/**
 * What to do with the stored run:
 * - `Run`: a new turn, from `state` (the message appended, the run running again);
 * - `Resume`: a repeat of the continuation the run is still carrying out (same key, the
 *   run `running`: its process crashed, or is alive and holds the lease): go on with it
 *   as a resume does, from `state` as stored;
 * - `Done`: a repeat of a continuation the run already took (same key): a no-op, the
 *   run's current state.
 */
export type Plan =
  | { readonly _tag: "Run"; readonly state: AgentState }
  | { readonly _tag: "Resume"; readonly state: AgentState }
  | { readonly _tag: "Done"; readonly state: AgentState }

const read = <A>(f: () => A): A | undefined => {
  try {
    return f()
  } catch {
    return undefined
  }
}

/**
 * Checks what a caller gave (any value): a string, or a user message
 * (`{ role: "user", content }`), with content at most `maxContent` long; a key, when
 * given, a non-empty string at most `maxKey` long.
 */
export const check = (message: unknown, key: unknown): Result.Result<Checked, ContinuationInvalid> => {
  const invalid = (path: string, detail: string) => Result.fail(new ContinuationInvalid({ path, message: `${path}: ${detail}` }))
  let content: unknown = message
  let at = "message"
  if (typeof message !== "string") {
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      return invalid("message", `expected a string or a user message { role: "user", content }, got ${Json.excerpt(message, 60)}`)
    }
    const role = read(() => (message as { readonly role?: unknown }).role)
    if (role !== "user") return invalid("message.role", `expected "user", got ${Json.excerpt(role, 60)}`)
    content = read(() => (message as { readonly content?: unknown }).content)
    at = "message.content"
  }
  if (typeof content !== "string") return invalid(at, `expected a string, got ${Json.excerpt(content, 60)}`)
  if (content.length > maxContent) return invalid(at, `longer than ${maxContent} characters (${content.length})`)
  if (key !== undefined && (typeof key !== "string" || key.length === 0 || key.length > maxKey)) {
    return invalid("key", `expected a string of 1 to ${maxKey} characters, got ${Json.excerpt(key, 60)}`)
  }
  return Result.succeed({ message: Message.user(content), key: key as string | undefined })
}

/** The keys of the latest continuations a state keeps (anything else there is ignored). */
export const keysOf = (state: AgentState): ReadonlyArray<string> => {
  const kept = state.metadata[keysField]
  return Array.isArray(kept) ? kept.filter((k): k is string => typeof k === "string") : []
}

const finished = (status: AgentState.ExecutionStatus): boolean => status === "completed" || status === "stopped" || status === "failed"

/**
 * The plan for a stored run and a checked continuation. A repeat (its key kept) is
 * `Resume` while the run is `running`, else `Done`. Otherwise only a finished run
 * (completed, stopped or failed) goes on; any other is `ContinuationRefused`.
 */
export const plan = (state: AgentState, checked: Checked): Result.Result<Plan, ContinuationRefused> => {
  const status = state.execution.status
  if (checked.key !== undefined && keysOf(state).includes(checked.key)) {
    return Result.succeed(status === "running" ? { _tag: "Resume", state } : { _tag: "Done", state })
  }
  if (!finished(status)) {
    return Result.fail(
      new ContinuationRefused({
        runId: state.id,
        status,
        message: status === "suspended"
          ? `run ${JSON.stringify(state.id)} is suspended: resume it with decisions before it goes on`
          : `run ${JSON.stringify(state.id)} is ${status}: only a completed, stopped or failed run goes on`,
      }),
    )
  }
  return Result.succeed({ _tag: "Run", state: continued(state, checked) })
}

/**
 * The next turn's state: the user message appended, the run running again with no stop
 * signal, stop reason, continuation request or waiting call; its steps, usage, errors
 * and execution metadata go on. `startedAt` is cleared, so the turn's start is read
 * from the clock when it runs (a store keys the turn's journal on it); the key, if any,
 * is kept with the latest ones.
 */
export const continued = (state: AgentState, checked: Checked): AgentState => {
  const e = state.execution
  const withMessage = AgentState.appendMessage(state, checked.message)
  const running = AgentState.withExecution(withMessage, {
    status: "running",
    startedAt: undefined,
    runningSince: undefined,
    completedAt: undefined,
    steps: e.steps,
    stopSignals: [],
    continuationRequested: false,
    usage: e.usage,
    errors: e.errors,
    stopReason: undefined,
    metadata: e.metadata,
    pendingCalls: undefined,
    suspendedStep: undefined,
  })
  return checked.key === undefined ? running : withKey(running, checked.key)
}

/** The state with `key` kept among its latest continuation keys. */
export const withKey = (state: AgentState, key: string): AgentState =>
  AgentState.withMetadata(state, { [keysField]: [...keysOf(state), key].slice(-keptKeys) })
