// Two requests for one chat at once (a double-clicked send, two tabs): the first to reach
// the store runs the turn; the store refuses the other before it does anything (the run's
// lease is held, or its id is stored already). That request is not failed: it waits for
// the chat's turn to end, then asks again, and the repeat rule answers it (the same
// message is a repeat, another one the turn after). Shared by `chatAgent` and `toAiSdkAgent`.
import type { Agent, AgentEvent } from "@hookline/agent"
import { AgentError, type AgentState } from "@hookline/core"
import { Data } from "effect"
import type { ChatTurn } from "./chatRequest.js"
import { turnEvents, type TurnRun } from "./turnEvents.js"

/**
 * A request found its chat's turn still running (another request of the same chat holds
 * the run) and it did not end within `busyTimeout`: nothing of this request ran or was
 * written. `chatAgent.respond` answers it with a 409 Conflict naming it and the chat;
 * `toAiSdkAgent` and `chatAgent.stream` end with it (the stream's `error` part).
 *
 * @since 0.1.0
 * @category errors
 */
export class ChatBusy extends Data.TaggedError("ChatBusy")<{ readonly chatId: string; readonly message: string }> {}

/** How long a request waits for its chat's running turn by default (ms): the store's default lease. */
export const defaultBusyTimeout = 30_000

// @hookline/store's refusals of a run that did nothing (its public `RunLeasedReason` and
// `RunExistsReason`, signalled from the lease hook); this package does not depend on it.
const refusalSource = "store:lease"
const refusalReasons: ReadonlySet<string> = new Set(["RunLeased", "RunExists"])

/** Whether a run ended refused by the store before it began: another run of its id holds it or stored it first. */
export const isRefusedStart = (state: AgentState): boolean =>
  state.execution.stopSignals.some((s) => s.source === refusalSource && refusalReasons.has(s.reason))

/**
 * Whether an error that came before any event says the chat's run is another request's:
 * its lease is held (`RunLeased`), or it is running (`ContinuationRefused`, status `running`).
 */
export const isBusyError = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false
  const { _tag, status } = error as { readonly _tag?: unknown; readonly status?: unknown }
  return _tag === "RunLeased" || _tag === "RunExists" || (_tag === "ContinuationRefused" && status === "running")
}

/**
 * The requests of one adapter waiting for a chat's turn: woken when a turn of that chat
 * ends here (the same process), else when their pause is up (another process's turn).
 */
export interface Waiting {
  readonly wait: (chatId: string, ms: number, signal: AbortSignal | undefined) => Promise<void>
  readonly wake: (chatId: string) => void
}

/** An empty set of waiting requests. */
export const makeWaiting = (): Waiting => {
  const waiters = new Map<string, Set<() => void>>()
  const wait = (chatId: string, ms: number, signal: AbortSignal | undefined) =>
    new Promise<void>((resolve) => {
      const set = waiters.get(chatId) ?? new Set<() => void>()
      waiters.set(chatId, set)
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener("abort", done)
        set.delete(done)
        if (set.size === 0 && waiters.get(chatId) === set) waiters.delete(chatId)
        resolve()
      }
      const timer = setTimeout(done, ms)
      set.add(done)
      signal?.addEventListener("abort", done)
    })
  const wake = (chatId: string) => {
    for (const done of [...(waiters.get(chatId) ?? [])]) done()
  }
  return { wait, wake }
}

type Attempt = "busy" | "done"

// The events a run gives before its first hook's outcome shows.
const preamble: ReadonlySet<AgentEvent["_tag"]> = new Set(["RunStarted", "TextChecked", "HookExecuted"])

// One try of the turn. What the store refused is seen before anything is shown: the
// refusal comes first (the lease hook runs before every other), so the run's preamble is
// held back until the next event tells a refused run from one that goes on.
async function* attempt<C>(agent: Agent<C>, turn: ChatTurn, run: TurnRun<C>): AsyncGenerator<AgentEvent, Attempt> {
  const iterator = turnEvents(agent, turn, run)[Symbol.asyncIterator]()
  const held: Array<AgentEvent> = []
  let shown = false
  let ended = false
  try {
    for (;;) {
      const next = await iterator.next()
      if (next.done === true) break
      const event = next.value
      if (!shown) {
        if (preamble.has(event._tag)) {
          held.push(event)
          continue
        }
        if (event._tag === "RunEnded" && held.length > 0 && isRefusedStart(event.state)) return "busy"
        shown = true
        yield* held
      }
      yield event
    }
    ended = true
  } catch (error) {
    ended = true
    if (!shown && isBusyError(error)) return "busy"
    throw error
  } finally {
    // Left early (refused, or the consumer stopped reading): ending the events aborts the run.
    if (!ended) await iterator.return?.(undefined).catch(() => undefined)
  }
  yield* held
  return "done"
}

/**
 * The events of one turn, as `turnEvents` gives them, but a request the store refused
 * because another request of the same chat holds its run waits for that turn and asks
 * again (pauses from 10 ms doubling to 500 ms, or woken as soon as a turn of that chat
 * ends in this adapter), up to `busyTimeout` ms; then it fails with `ChatBusy`. An aborted
 * request stops waiting and ends with no events.
 */
export async function* waitingTurnEvents<C>(
  agent: Agent<C>,
  turn: ChatTurn,
  run: TurnRun<C>,
  options: { readonly busyTimeout: number; readonly waiting: Waiting },
): AsyncGenerator<AgentEvent> {
  const deadline = Date.now() + options.busyTimeout
  let pause = 10
  for (;;) {
    let outcome: Attempt = "done"
    try {
      outcome = yield* attempt(agent, turn, run)
    } finally {
      // A turn that ran (or broke off) lets the chat's waiting requests ask again; a refused one does not.
      if (outcome === "done") options.waiting.wake(turn.chatId)
    }
    if (outcome === "done") return
    const left = deadline - Date.now()
    if (left <= 0) {
      throw new ChatBusy({
        chatId: turn.chatId,
        message: `another request is answering chat ${turn.chatId} and did not end within ${options.busyTimeout} ms; send again when it has`,
      })
    }
    await options.waiting.wait(turn.chatId, Math.min(pause, left), run.signal)
    if (run.signal?.aborted === true) return
    pause = Math.min(pause * 2, 500)
  }
}

/** A `busyTimeout` option checked: a finite number of ms, at least 0. */
export const busyTimeoutOf = (value: unknown): number => {
  if (value === undefined) return defaultBusyTimeout
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("busyTimeout", `expected a finite number of milliseconds, at least 0, got ${String(value).slice(0, 40)}`),
    )
  }
  return value
}
