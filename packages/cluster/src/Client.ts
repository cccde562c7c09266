/**
 * A client of the runs, usable from any process of the cluster (a runner, or a
 * client-only process): `start`, `result`, `resume`, `status`, `cancel`. The Effect
 * form is the `HooklineClient` service; `Client.promise` wraps it for Promise users.
 * A client is ready only after it read the shard assignments (one volatile call has
 * answered): a persisted message sent before that waits for its runner's storage poll.
 *
 * @since 0.1.0
 */
import { Cause, Context, Duration, Effect, Layer, Schedule } from "effect"
import type { Sharding } from "effect/cluster"
import { HooklineRun } from "./HooklineRun.js"
import type { RunError, RunSummary } from "./Protocol.js"

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
 * The client, in Effect form.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClientShape {
  /** Stores the run's Start (idempotent per run id) and answers its id; the run goes on without the caller. */
  readonly start: (agent: string, input: string, options?: StartOptions) => Effect.Effect<string, DeliveryError>
  /** Waits until the run ended or suspended (not while it is queued, running, or being handed over). */
  readonly result: (runId: string) => Effect.Effect<RunSummary, RunError | DeliveryError>
  /** Goes on with a suspended run; answers when it ended or suspended again. */
  readonly resume: (runId: string, decisions: ReadonlyArray<unknown>) => Effect.Effect<RunSummary, RunError | DeliveryError>
  /** The run as stored now (answers while it runs). */
  readonly status: (runId: string) => Effect.Effect<RunSummary, RunError | DeliveryError>
  /** Cancels the run (stored first); its summary, or `null` when it is not stored yet. */
  readonly cancel: (runId: string) => Effect.Effect<RunSummary | null, RunError | DeliveryError>
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
  /** How often `result` asks again while the run is queued, running or handed over (default 200 ms). */
  readonly pollInterval?: Duration.Input | undefined
  /** How long one volatile call may take before it is sent again (default 30 s: a run's owner died). */
  readonly callTimeout?: Duration.Input | undefined
}

const runErrors = new Set(["UnknownAgent", "ToolSetMismatch", "RunNotFound", "RunRejected"])
const isRunError = (e: { readonly _tag: string }): e is RunError => runErrors.has(e._tag)

// The run's own answer goes to the caller; what the cluster met on the way (a runner
// gone, a full mailbox, a timeout) is tried again.
// A call to a runner that died is interrupted, not failed: that is tried again too.
const delivered = <A, E extends { readonly _tag: string }>(call: Effect.Effect<A, E>, timeout: Duration.Input, times: number) =>
  call.pipe(
    Effect.catchCause((cause): Effect.Effect<never, E | { readonly _tag: "CallInterrupted" }> =>
      Cause.hasInterruptsOnly(cause) ? Effect.fail({ _tag: "CallInterrupted" } as const) : Effect.failCause(cause)
    ),
    Effect.timeoutOrElse({ duration: timeout, orElse: () => Effect.fail({ _tag: "CallTimedOut" } as const) }),
    Effect.retry({
      while: (e: { readonly _tag: string }) => !isRunError(e),
      schedule: Schedule.spaced("250 millis"),
      times,
    }),
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
    const timeout = options.callTimeout ?? "30 seconds"
    // Ready once a runner answered: the assignments are read.
    yield* Effect.ignore(delivered(Effect.catchTag(clientFor("hookline-client-probe").Status(), "RunNotFound", () => Effect.void), timeout, 1_000))
    const result = (runId: string): Effect.Effect<RunSummary, RunError | DeliveryError> =>
      Effect.flatMap(
        Effect.catchTag(delivered(clientFor(runId).Result(), timeout, 100), "RunNotFound", () => Effect.succeed(undefined)),
        (summary) =>
          summary !== undefined && summary.status !== "pending" && summary.status !== "running"
            ? Effect.succeed(summary)
            : Effect.andThen(Effect.sleep(poll), result(runId)),
      )
    return HooklineClient.of({
      start: (agent, input, startOptions = {}) => {
        const runId = startOptions.runId ?? crypto.randomUUID()
        return Effect.as(delivered(clientFor(runId).Start({ agent, input }, { discard: true }), timeout, 100), runId) as Effect.Effect<string, DeliveryError>
      },
      result,
      resume: (runId, decisions) => delivered(clientFor(runId).Resume({ decisions }), Duration.infinity, 100),
      status: (runId) => delivered(clientFor(runId).Status(), timeout, 100),
      cancel: (runId) => delivered(clientFor(runId).Cancel(), timeout, 100),
    })
  })

/**
 * The client as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<HooklineClient, never, Sharding.Sharding> => Layer.effect(HooklineClient, make(options))
