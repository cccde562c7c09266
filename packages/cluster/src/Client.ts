/**
 * A client of the runs, usable from any process of the cluster (a runner, or a
 * client-only process): `start`, `result`, `resume`, `status`, `cancel`. The Effect
 * form is the `HooklineClient` service; `Runner.openClient` wraps it for Promise users.
 * `events` streams a run's committed progress (`RunEvent`).
 * A client is ready only after it read the shard assignments (one volatile call has
 * answered): a persisted message sent before that waits for its runner's storage poll.
 * Its process reads the assignments as the runners do, with its own settings:
 * `Runner.clientLayer` takes the runners' `shardsPerGroup` and `lockExpiration` from their
 * records; a cluster built by hand must be given them. A runner counts as alive while its
 * heartbeat is younger than the reader's expiry, so a client with a longer one sends a
 * dead runner's shards to it (each call waits) until its own expiry has passed, after the
 * runners have moved them.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Data, Duration, Effect, Layer, Option, Result, Schedule, Stream } from "effect"
import type { Sharding } from "effect/cluster"
import { HooklineRun } from "./HooklineRun.js"
import { isSettled } from "./internal/summary.js"
import * as Protocol from "./Protocol.js"
import type { RunError, RunSummary } from "./Protocol.js"
import * as RunEvent from "./RunEvent.js"

/**
 * What the cluster answers besides a run's typed errors: no runner reachable now, a
 * message store that failed, a mailbox full (back-pressure).
 *
 * @since 0.1.0
 * @category errors
 */
export interface DeliveryError {
  readonly _tag: string
  readonly message?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StartOptions {
  /** The run's id (default: a new UUID). Start is idempotent per run id. */
  readonly runId?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ResultOptions {
  /** How long to wait for the run to end or suspend (default: the client's `resultTimeout`, 5 minutes). */
  readonly timeout?: Duration.Input | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface EventsOptions {
  /** Go on after this event's cursor (default: from the run's first event). */
  readonly after?: RunEvent.EventCursor | undefined
  /**
   * Where the stream ends: at the run's end (`RunEnded`), or at the first suspension it
   * gives as well (default `"end"`: a suspended run's stream waits for its resume).
   */
  readonly endAt?: "end" | "suspension" | undefined
}

/**
 * A volatile call (`status`, `cancel`, one ask of `result`) or a Start that no runner
 * answered within the client's `callTimeout`: the run's shard has no live owner (every
 * runner is gone, or its owner died and no other took it over yet). Nothing was lost: a
 * Start is stored, a run goes on; ask again later.
 *
 * @since 0.1.0
 * @category errors
 */
export class CallTimedOut extends Data.TaggedError("CallTimedOut")<{
  readonly runId: string
  readonly call: string
  readonly millis: number
}> {
  override get message(): string {
    return `no runner answered ${this.call} of run ${JSON.stringify(this.runId)} within ${this.millis} ms`
  }
}

/**
 * `result` waited its whole timeout and the run had neither ended nor suspended: the run
 * goes on (ask again, or `status`).
 *
 * @since 0.1.0
 * @category errors
 */
export class ResultTimedOut extends Data.TaggedError("ResultTimedOut")<{
  readonly runId: string
  readonly millis: number
}> {
  override get message(): string {
    return `run ${JSON.stringify(this.runId)} neither ended nor suspended within ${this.millis} ms`
  }
}

/**
 * The client, in Effect form.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientShape {
  /** Stores the run's Start (idempotent per run id) and answers its id; the run goes on without the caller. */
  readonly start: (agent: string, input: string, options?: StartOptions) => Effect.Effect<string, DeliveryError>
  /**
   * Waits until the run ended or suspended (not while it is queued, running, or being
   * handed over), for at most `timeout` (`ResultTimedOut`). A run stored nowhere for the
   * client's `notFoundAfter` fails with `RunNotFound`.
   */
  readonly result: (runId: string, options?: ResultOptions) => Effect.Effect<RunSummary, RunError | DeliveryError | ResultTimedOut>
  /** Goes on with a suspended run; answers when it ended or suspended again. */
  readonly resume: (runId: string, decisions: ReadonlyArray<unknown>) => Effect.Effect<RunSummary, RunError | DeliveryError>
  /** The run as stored now (answers while it runs); `CallTimedOut` when no runner answers within `callTimeout`. */
  readonly status: (runId: string) => Effect.Effect<RunSummary, RunError | DeliveryError>
  /** Cancels the run (stored first); its summary, or `null` when it is not stored yet. */
  readonly cancel: (runId: string) => Effect.Effect<RunSummary | null, RunError | DeliveryError>
  /**
   * The run's committed events from any process: each step once, in order, a suspension,
   * the run's end (then the stream ends). Read from the store the runners share, asked
   * every `eventsPollInterval` (at most `eventsBatch` events an ask), so a runner's death
   * or a hand-over loses or repeats nothing. A run no runner stores for `notFoundAfter`
   * fails with `RunNotFound`; no runner answering for `callTimeout` fails the stream with
   * `CallTimedOut` (go on with `after` the last event's cursor).
   */
  readonly events: (runId: string, options?: EventsOptions) => Stream.Stream<RunEvent.RunEvent, RunError | DeliveryError | RunEvent.EventInvalid>
}

/**
 * @since 0.1.0
 * @category services
 */
export class HooklineClient extends Context.Service<HooklineClient, ClientShape>()("@hookline/cluster/HooklineClient") {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The pause before `result` asks again after an ask found the run queued, running,
   * handed over or not stored yet (default 200 ms).
   */
  readonly pollInterval?: Duration.Input | undefined
  /**
   * How long one ask of `result` waits on the run's runner for a Start or Resume of the
   * run to come when none is there (a Start not delivered yet, a run handed over) before
   * it answers what the run is (default 5 s; at most half the `callTimeout` and at most
   * `notFoundAfter`; 0: it answers at once, and the client asks again every
   * `pollInterval`). Behind a Start or Resume on the runner an ask waits as long as they
   * take (`callTimeout` bounds it), and answers when the run ends or suspends: no
   * polling, no store read while the run goes on. A longer wait costs no latency.
   */
  readonly resultWait?: Duration.Input | undefined
  /**
   * How long a volatile call (`status`, `cancel`, one ask of `result`) or a Start keeps
   * trying before it fails with `CallTimedOut` (default 15 s: a dead runner's shards move
   * within the lock expiry, 10 s by default, and an assignment refresh; the client's
   * process must have the runners' expiry, else the longer of the two). `result` asks
   * again after a `CallTimedOut` (a run in flight longer than this), until its own timeout.
   * `Runner.clientLayer` also waits this long, once, for a runner's record of its settings.
   */
  readonly callTimeout?: Duration.Input | undefined
  /** How long `result` waits for a run to end or suspend, unless told (default 5 minutes). */
  readonly resultTimeout?: Duration.Input | undefined
  /**
   * How long `result` waits for a run no runner has stored before it fails with
   * `RunNotFound` (default 30 s: a Start just sent is stored when its runner handles it).
   */
  readonly notFoundAfter?: Duration.Input | undefined
  /** How often `events` asks again once it has all the run's committed events (default 500 ms). */
  readonly eventsPollInterval?: Duration.Input | undefined
  /** The most events one ask of `events` brings, 1 to 256 (default 64): what a subscriber holds at once. */
  readonly eventsBatch?: number | undefined
}

/**
 * The default `callTimeout`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCallTimeout: Duration.Input = "15 seconds"

const runErrors = new Set(["UnknownAgent", "ToolSetMismatch", "RunNotFound", "RunRejected"])
const isRunError = (e: { readonly _tag: string }): e is RunError => runErrors.has(e._tag)

const millisOf = (input: Duration.Input): number => Duration.toMillis(Duration.fromInputUnsafe(input))

// The run's own answer goes to the caller; what the cluster met on the way (a runner
// gone, a full mailbox) is tried again, until `total`.
// A call to a runner that died is interrupted, not failed: that is tried again too.
const delivered = <A, E extends { readonly _tag: string }>(runId: string, name: string, call: Effect.Effect<A, E>, total: number) =>
  call.pipe(
    Effect.catchCause((cause): Effect.Effect<never, E | { readonly _tag: "CallInterrupted" }> =>
      Cause.hasInterruptsOnly(cause) ? Effect.fail({ _tag: "CallInterrupted" } as const) : Effect.failCause(cause)
    ),
    Effect.retry({ while: (e: { readonly _tag: string }) => !isRunError(e), schedule: Schedule.spaced("250 millis") }),
    Effect.timeoutOrElse({ duration: total, orElse: () => Effect.fail(new CallTimedOut({ runId, call: name, millis: total })) }),
  ) as Effect.Effect<A, RunError | DeliveryError>

/**
 * The client over the cluster's `Sharding` (a runner's, or a client-only process's).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<ClientShape, never, Sharding.Sharding> =>
  Effect.gen(function*() {
    const clientFor = yield* HooklineRun.client
    const poll = options.pollInterval ?? "200 millis"
    const timeout = millisOf(options.callTimeout ?? defaultCallTimeout)
    const resultTimeout = options.resultTimeout ?? "5 minutes"
    const notFoundAfter = millisOf(options.notFoundAfter ?? "30 seconds")
    const resultWait = Math.trunc(Math.max(0, Math.min(millisOf(options.resultWait ?? "5 seconds"), timeout / 2, notFoundAfter, Protocol.maxResultWait)))
    // Ready once a runner answered: the assignments are read.
    yield* Effect.ignore(delivered("hookline-client-probe", "Status", Effect.catchTag(clientFor("hookline-client-probe").Status(), "RunNotFound", () => Effect.void), timeout))
    // Asks until the run ended or suspended; a run not stored yet is asked for again
    // until notFoundAfter, an ask no runner answered until the result's own timeout.
    type Answer = { readonly _tag: "Summary"; readonly summary: RunSummary } | { readonly _tag: "NotStored"; readonly error: RunError } | { readonly _tag: "Unanswered" }
    const askOnce = (runId: string): Effect.Effect<Answer, RunError | DeliveryError> =>
      delivered(runId, "Result", clientFor(runId).Result({ wait: resultWait }), timeout).pipe(
        Effect.map((summary): Answer => ({ _tag: "Summary", summary })),
        Effect.catch((error: RunError | DeliveryError): Effect.Effect<Answer, RunError | DeliveryError> =>
          error._tag === "RunNotFound"
            ? Effect.succeed({ _tag: "NotStored", error: error as RunError })
            : error._tag === "CallTimedOut"
            ? Effect.succeed({ _tag: "Unanswered" })
            : Effect.fail(error)
        ),
      )
    const ask = (runId: string, since: number): Effect.Effect<RunSummary, RunError | DeliveryError> =>
      Effect.flatMap(askOnce(runId), (answer) =>
        Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<RunSummary, RunError | DeliveryError> => {
          if (answer._tag === "NotStored") {
            return now - since >= notFoundAfter ? Effect.fail(answer.error) : Effect.andThen(Effect.sleep(poll), ask(runId, since))
          }
          if (answer._tag === "Summary" && isSettled(answer.summary.status)) {
            return Effect.succeed(answer.summary)
          }
          return Effect.andThen(Effect.sleep(poll), ask(runId, now))
        }))
    const result = (runId: string, resultOptions: ResultOptions = {}) => {
      const millis = millisOf(resultOptions.timeout ?? resultTimeout)
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.timeoutOrElse(ask(runId, now), { duration: millis, orElse: () => Effect.fail(new ResultTimedOut({ runId, millis })) }))
    }
    const eventsPoll = options.eventsPollInterval ?? "500 millis"
    const eventsBatch = Math.min(Math.max(Math.trunc(options.eventsBatch ?? 64), 1), RunEvent.bounds.maxEvents)
    const events = (runId: string, eventsOptions: EventsOptions = {}) =>
      Stream.paginate<Page, RunEvent.RunEvent, RunError | DeliveryError | RunEvent.EventInvalid>(
        { cursor: eventsOptions.after ?? RunEvent.start, notSince: undefined as number | undefined, wait: false },
        (page) => eventsPage(runId, page, eventsOptions.endAt ?? "end"),
      )
    interface Page {
      readonly cursor: RunEvent.EventCursor
      readonly notSince: number | undefined
      readonly wait: boolean
    }
    type PageOut = readonly [ReadonlyArray<RunEvent.RunEvent>, Option.Option<Page>]
    const eventsPage = (runId: string, page: Page, endAt: "end" | "suspension"): Effect.Effect<PageOut, RunError | DeliveryError | RunEvent.EventInvalid> =>
      Effect.gen(function*() {
        if (page.wait) yield* Effect.sleep(eventsPoll)
        const asked: Effect.Effect<RunEvent.EventBatch, RunError | DeliveryError> = delivered(
          runId,
          "Events",
          clientFor(runId).Events({ after: page.cursor, max: eventsBatch }),
          timeout,
        )
        const answer = yield* Effect.catch(asked, (error): Effect.Effect<RunError, RunError | DeliveryError> =>
          error._tag === "RunNotFound" ? Effect.succeed(error as RunError) : Effect.fail(error))
        const now = yield* Clock.currentTimeMillis
        if (!("events" in answer)) {
          const notSince = page.notSince ?? now
          if (now - notSince >= notFoundAfter) return yield* Effect.fail(answer)
          return [[], Option.some<Page>({ ...page, notSince, wait: true })] as const
        }
        const out: Array<RunEvent.RunEvent> = []
        let steps = page.cursor.steps
        for (const wire of answer.events) {
          // The runner's answer is checked: each step decodes, and comes once, in order.
          if (wire._tag === "StepEnded" && wire.index !== steps) {
            return yield* new RunEvent.EventInvalid({ runId, index: wire.index, path: "index", detail: `expected step ${steps}` })
          }
          const event = RunEvent.decode(runId, wire)
          if (Result.isFailure(event)) return yield* event.failure
          out.push(event.success)
          if (wire._tag === "StepEnded") steps++
          if (RunEvent.isLast(event.success, endAt)) return [out, Option.none()] as const
        }
        return [out, Option.some<Page>({ cursor: answer.cursor, notSince: undefined, wait: answer.events.length < eventsBatch })] as const
      })
    return HooklineClient.of({
      start: (agent, input, startOptions = {}) => {
        const runId = startOptions.runId ?? crypto.randomUUID()
        return Effect.as(delivered(runId, "Start", clientFor(runId).Start({ agent, input }, { discard: true }), timeout), runId) as Effect.Effect<string, DeliveryError>
      },
      result,
      resume: (runId, decisions) => delivered(runId, "Resume", clientFor(runId).Resume({ decisions }), Number.POSITIVE_INFINITY),
      status: (runId) => delivered(runId, "Status", clientFor(runId).Status(), timeout),
      cancel: (runId) => delivered(runId, "Cancel", clientFor(runId).Cancel(), timeout),
      events,
    })
  })

/**
 * The client as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<HooklineClient, never, Sharding.Sharding> => Layer.effect(HooklineClient, make(options))
