/**
 * The handlers of `HooklineRun`, on a runner. Shard ownership is the authority: a
 * handler that takes a run over breaks the run's lease (the runner that had it is gone,
 * or a zombie whose next renewal fails, so it runs no more tools). A run is handed over,
 * not stopped, when its entity is interrupted (the runner shuts down, the entity is
 * evicted): it stays `running` at its last committed step, and the redelivered message
 * resumes it on the new owner. Only Cancel stops it, and a Cancel is stored first.
 * A runner shutting down lets its runs in flight end before effect/cluster starts to
 * hand its shards over (`Drain`).
 *
 * @since 0.1.0
 */
import { AgentState, Message } from "@hookline/core"
import { Envelope, RunStore } from "@hookline/store"
import { Clock, Context, Deferred, Effect, Exit, Layer, Schedule } from "effect"
import { ClusterSchema, Entity, Sharding } from "effect/cluster"
import { Rpc } from "effect/rpc"
import * as Cancellation from "./Cancellation.js"
import type { Registered } from "./ClusterAgent.js"
import { HooklineRun } from "./HooklineRun.js"
import { RunNotFound, RunRejected, type RunSummary, ToolSetMismatch, UnknownAgent } from "./Protocol.js"
import { batchOf } from "./internal/events.js"
import { isEnded, isSettled, summaryOf } from "./internal/summary.js"
import * as RunEvent from "./RunEvent.js"
import * as Settings from "./Settings.js"

/**
 * What the handlers need on a runner: the store the runs checkpoint to, and the agents.
 *
 * @since 0.1.0
 * @category services
 */
export class Hookline extends Context.Service<Hookline, {
  readonly store: RunStore.RunStore
  readonly agents: ReadonlyMap<string, Registered>
}>()("@hookline/cluster/Hookline") {}

/**
 * The runs a runner has in flight, and its graceful shutdown's first part: the runs end
 * while the runner still holds its shards. effect/cluster's own teardown then finds
 * nothing in flight. Its hand-over releases every shard of the runner at once on the
 * one connection that holds the shard locks; on a loaded machine a lock operation misses
 * its deadline, the runner rebuilds that connection (which drops every lock it held) and
 * declares its lock storage unhealthy, which force-interrupts its entities: a run in
 * flight then was handed over with a tool call running, and the next owner ran the
 * call again (docs/decisions.md, "Cluster drain and result").
 *
 * @since 0.1.0
 * @category models
 */
export class Drain {
  private running = 0
  private closing = false
  private readonly idle = Deferred.makeUnsafe<void>()
  private readonly closed = Deferred.makeUnsafe<void>()

  /** Whether the runner is shutting down (no new run begins). */
  get isClosing(): boolean {
    return this.closing
  }

  /** How many runs are in flight. */
  get inFlight(): number {
    return this.running
  }

  /**
   * Runs `run` as a run in flight. Once the runner is shutting down, a run not begun yet
   * never begins: it waits until `abandon` ends it, so nothing of it ran here and the
   * next owner runs it whole.
   */
  track<A, E, R>(run: Effect.Effect<A, E, R>, abandon: Effect.Effect<never>): Effect.Effect<A, E, R> {
    return Effect.suspend(() => {
      if (this.closing) return Effect.andThen(Deferred.await(this.closed), abandon)
      this.running++
      return Effect.ensuring(run, Effect.sync(() => {
        this.running--
        if (this.closing && this.running === 0) Deferred.doneUnsafe(this.idle, Exit.void)
      }))
    })
  }

  /** Stops new runs from beginning and waits for those in flight, for at most `millis`. */
  close(millis: number): Effect.Effect<void> {
    return Effect.suspend(() => {
      this.closing = true
      if (this.running === 0) Deferred.doneUnsafe(this.idle, Exit.void)
      return Effect.asVoid(Effect.timeoutOption(Deferred.await(this.idle), millis))
    }).pipe(Effect.ensuring(Effect.sync(() => Deferred.doneUnsafe(this.closed, Exit.void))))
  }
}

// A run held back by a runner shutting down is left to the next owner once effect/cluster
// hands the shards over: an interruption marked Abandon, which the entity leaves for
// replay instead of answering (effect/cluster's ClusterAbandon, public as the annotation).
const abandonOnShutdown = (sharding: Sharding.Sharding["Service"]): Effect.Effect<never> =>
  Effect.andThen(
    Effect.repeat(sharding.isShutdown, { until: (down) => down, schedule: Schedule.spaced("50 millis") }),
    Effect.withFiber((fiber) => {
      fiber.interruptUnsafe(fiber.id, ClusterSchema.Abandon.annotation)
      return Effect.never
    }),
  )

// A store that failed, or a run another writer holds: not the message's final answer.
// A defect restarts the entity, and the persisted message is handled again.
const retried = new Set(["StoreFailed", "RunLeased", "RunExists", "CheckpointConflict"])

const rejected = (runId: string) => (error: { readonly _tag: string; readonly message: string }) =>
  retried.has(error._tag) ? Effect.die(error) : Effect.fail(new RunRejected({ runId, reason: error._tag, detail: error.message.slice(0, 2_000) }))

const load = (store: RunStore.RunStore, runId: string) => Effect.catch(RunStore.loadEffect(store, runId), rejected(runId))

// How long a Start or Resume received may wait for a free turn before it counts as
// interrupted unbegun (a free turn is taken at once).
const unstartedAfter = 5_000

const ended = (summary: RunSummary | undefined): summary is RunSummary => summary !== undefined && isEnded(summary.status)

const cancelled = (store: RunStore.RunStore, runId: string) =>
  Effect.map(Effect.orDie(store.journalGet(runId, Cancellation.markerKey)), (body) => body !== undefined)

// A Start's first question, whether the run is stored and whether it was cancelled, in
// one read where the store object answers both at once (a SQL store as opened), else in
// two at once through its own `head` and `journalGet` (a wrapper's included).
const headAndMarker = (store: RunStore.RunStore, runId: string): Effect.Effect<RunStore.HeadAndJournal> =>
  Effect.orDie(RunStore.readHeadAndJournal(store, runId, Cancellation.markerKey))

/**
 * The agent a stored run names, checked: known here, with the tool set it was stored with.
 *
 * @since 0.1.0
 * @category handlers
 */
export const agentFor = (
  agents: ReadonlyMap<string, Registered>,
  runId: string,
  named: string,
  envelope: Envelope.Envelope | undefined,
): Effect.Effect<Registered, UnknownAgent | ToolSetMismatch> => {
  const name = envelope?.agent ?? named
  const registered = agents.get(name)
  if (registered === undefined) return Effect.fail(new UnknownAgent({ runId, agent: name }))
  if (envelope?.toolSet !== undefined && !Envelope.sameToolSet(envelope.toolSet, registered.toolSet)) {
    return Effect.fail(new ToolSetMismatch({ runId, agent: name }))
  }
  return Effect.succeed(registered)
}

const handlers = (drain: Drain) => Effect.gen(function*() {
  const { agents, store } = yield* Hookline
  const abandon = abandonOnShutdown(yield* Sharding.Sharding)
  const runId: string = (yield* Entity.CurrentAddress).entityId
  // The Start or Resume in flight: Cancel aborts it.
  let inFlight: AbortController | undefined
  // What this entity knows without the store. A run lives on one entity at a time (its
  // shard's owner), so what its own handlers answered is the run as stored:
  // - `queued`: Starts and Resumes received and not ended (a Result waits behind them),
  //   `begun` those of them that began;
  // - `last`: the summary the last of them (or a Cancel) answered;
  // - `cancelAsked`: a Cancel came here (the run it meets in flight checks the store);
  // - `changed`: done, and replaced, whenever one of them arrives or ends.
  let queued = 0
  let begun = 0
  let last: RunSummary | undefined
  let cancelAsked = false
  let changed = Deferred.makeUnsafe<void>()
  // A Result that finds no Start here reads whether the run is stored and whether it was
  // cancelled (one statement); a Start that arrives while that Result waits (the usual
  // order: `result` goes straight to the runner, which reads the Start back from the
  // table first) takes that read, done or in flight, instead of making its own. Nothing
  // of the run changed here since the read began: a Resume or Cancel arriving drops it, a
  // Start or Resume ending too, and so does the end of that Result's wait.
  let ahead: Deferred.Deferred<RunStore.HeadAndJournal> | undefined
  const signal = () => {
    const done = changed
    changed = Deferred.makeUnsafe<void>()
    Deferred.doneUnsafe(done, Effect.void)
  }
  // A Start or Resume: counted from its arrival (the handler is built then, before it
  // waits for the entity's turn), its answer kept.
  const serial = <E>(effect: Effect.Effect<RunSummary, E>): Effect.Effect<RunSummary, E> => {
    queued++
    last = undefined
    ahead = undefined
    signal()
    return Effect.suspend(() => {
      begun++
      return effect.pipe(
        Effect.tap((summary) => Effect.sync(() => (last = summary))),
        Effect.ensuring(Effect.sync(() => {
          ahead = undefined
          begun--
          queued = Math.max(0, queued - 1)
          signal()
        })),
      )
    })
  }
  // One interrupted while it waited for the entity's turn never began (nor ends): with
  // none running the turn is free, so one still not begun a while later is dropped.
  const behind = (next: Deferred.Deferred<void>) =>
    begun > 0 ? Deferred.await(next) : Effect.map(Effect.timeoutOption(Deferred.await(next), unstartedAfter), (woke) => {
      if (woke._tag === "None" && begun === 0) queued = 0
    })

  const summary = (state: AgentState, envelope: Envelope.Envelope | undefined, named = ""): RunSummary =>
    summaryOf(state, envelope?.agent ?? named)

  // A cancelled run that is not in flight, stopped in the store (a new one stored
  // stopped). A writer that raced it (the other path of a Cancel) wins: its state stands.
  const ensureStopped = (initial: AgentState | undefined, named: string) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const saved = yield* load(store, runId)
      if (saved === undefined) {
        if (initial === undefined) return undefined
        yield* Effect.ignore(RunStore.startEffect(store, Cancellation.stopped(initial, now), { envelope: { agent: named } }))
      } else if (!Cancellation.isFinished(saved.state)) {
        yield* Effect.ignore(RunStore.breakLeaseEffect(store, runId))
        yield* Effect.ignore(RunStore.saveEffect(store, Cancellation.stopped(saved.state, now), saved, undefined, saved.envelope))
      }
      const after = yield* load(store, runId)
      return after === undefined ? undefined : summary(after.state, after.envelope, named)
    })

  // Runs (or resumes) the run with an abort controller Cancel can reach; an
  // interruption hands it over. A cancel that came meanwhile is honoured at the end.
  const running = <E>(f: (signal: AbortSignal) => Effect.Effect<AgentState, E>, initial: AgentState | undefined, named: string) =>
    Effect.gen(function*() {
      const controller = new AbortController()
      inFlight = controller
      const final = yield* drain.track(
        Effect.ensuring(f(controller.signal), Effect.sync(() => (inFlight = inFlight === controller ? undefined : inFlight))),
        abandon,
      )
      // A Cancel came while it ran (here: the only place a Cancel of it is handled while
      // this entity holds it); otherwise the final state is the one checkpointed.
      if (cancelAsked && (yield* cancelled(store, runId))) return (yield* ensureStopped(initial, named)) ?? summaryOf(final, named)
      return summaryOf(final, named)
    })

  const options = (signal: AbortSignal) => ({ signal, interruption: "handOver" as const })

  // The Start's first read: the waiting Result's (above) where it has one that succeeded,
  // else its own.
  const firstRead = (read: Deferred.Deferred<RunStore.HeadAndJournal> | undefined) =>
    read === undefined
      ? headAndMarker(store, runId)
      : Effect.flatMap(Effect.exit(Deferred.await(read)), (exit) => (Exit.isSuccess(exit) ? Effect.succeed(exit.value) : headAndMarker(store, runId)))

  return HooklineRun.of({
    Start: ({ payload }) => {
      // Taken at its arrival: whatever comes after it drops the Result's read.
      const read = ahead
      return serial(Effect.gen(function*() {
        const { head, body: marker } = yield* firstRead(read)
        // A run not stored is one read (a run stored since is met by the write that finds
        // it: RunExists, retried).
        const saved = head === 0 ? undefined : yield* load(store, runId)
        if (saved === undefined) {
          const initial = AgentState.make({ id: runId, messages: [Message.user(payload.input)] })
          const registered = agents.get(payload.agent)
          if (registered === undefined) {
            // Kept, not lost: stored with its agent's name, for a runner that has it.
            yield* Effect.ignore(RunStore.startEffect(store, initial, { envelope: { agent: payload.agent } }))
            return yield* new UnknownAgent({ runId, agent: payload.agent })
          }
          // A Cancel here since the read (it is known here before its marker is stored) is read again.
          if (marker !== undefined || (cancelAsked && (yield* cancelled(store, runId)))) {
            return (yield* ensureStopped(initial, payload.agent)) as RunSummary
          }
          // resumeEffect given a state is a new run that fails typed (RunExists, RunLeased)
          // where runEffect would only stop.
          return yield* running((signal) => Effect.catch(registered.agent.resumeEffect(initial, options(signal)), rejected(runId)), initial, payload.agent)
        }
        // Redelivered (the runner that had it is gone, or its reply was lost), or resent
        // after it was stored. The marker was read with the head; a Cancel that reached
        // this entity since is read again, as for a new run.
        const registered = yield* agentFor(agents, runId, payload.agent, saved.envelope)
        if (marker !== undefined || (cancelAsked && (yield* cancelled(store, runId)))) {
          return (yield* ensureStopped(undefined, registered.name)) as RunSummary
        }
        if (Cancellation.isFinished(saved.state)) return summary(saved.state, saved.envelope)
        yield* Effect.orDie(RunStore.breakLeaseEffect(store, runId))
        return yield* running((signal) => Effect.catch(registered.agent.resumeEffect(runId, options(signal)), rejected(runId)), undefined, registered.name)
      }))
    },
    Resume: ({ payload }) => {
      // An ended run this entity answered does not change (as for Status): a Resume of it
      // answers that, reading nothing. A Cancel here since reads the store, as before.
      const known = queued === 0 && !cancelAsked && ended(last) ? last : undefined
      if (known !== undefined) return serial(Effect.succeed(known))
      return serial(Effect.gen(function*() {
        const saved = yield* load(store, runId)
        if (saved === undefined) return yield* new RunNotFound({ runId })
        const registered = yield* agentFor(agents, runId, "", saved.envelope)
        if (yield* cancelled(store, runId)) return (yield* ensureStopped(undefined, registered.name)) as RunSummary
        if (Cancellation.isFinished(saved.state)) return summary(saved.state, saved.envelope)
        yield* Effect.orDie(RunStore.breakLeaseEffect(store, runId))
        // A redelivered Resume meets its own kept decisions: the agent's repeat rule makes
        // them a no-op, and the run carries them out.
        const decisions = payload.decisions as ReadonlyArray<never>
        return yield* running(
          (signal) => Effect.catch(registered.agent.resumeEffect(runId, { ...options(signal), decisions }), rejected(runId)),
          undefined,
          registered.name,
        )
      }))
    },
    Status: () =>
      Rpc.fork(Effect.gen(function*() {
        // An ended run does not change: what this entity answered stands.
        if (queued === 0 && ended(last)) return last
        const saved = yield* load(store, runId)
        if (saved === undefined) return yield* new RunNotFound({ runId })
        return summary(saved.state, saved.envelope)
      })),
    Result: ({ payload }) =>
      // Forked: it waits here without holding back the Start, Resume or Cancel it waits for.
      Rpc.fork(Effect.gen(function*() {
        const wait = payload.wait ?? 0
        const deadline = (yield* Clock.currentTimeMillis) + wait
        while (true) {
          const next = changed
          const now = yield* Clock.currentTimeMillis
          if (queued > 0) {
            // Behind a Start or Resume here: as long as they take (the caller's own
            // timeout bounds it), reading nothing while the run goes on.
            yield* behind(next)
            continue
          }
          if (ended(last)) return last
          // Kept for a Start that arrives meanwhile (`ahead`, above), until this ask's wait ends.
          const read = Deferred.makeUnsafe<RunStore.HeadAndJournal>()
          ahead = read
          const drop = Effect.sync(() => (ahead = ahead === read ? undefined : ahead))
          const answer: RunSummary | undefined = yield* Effect.ensuring(
            Effect.gen(function*() {
              const { head } = yield* Effect.onExit(headAndMarker(store, runId), (exit) => Deferred.done(read, exit))
              // A run not stored is one read (a run stored since is met by the write that finds it).
              const saved = head === 0 ? undefined : yield* load(store, runId)
              if (saved !== undefined) {
                // A run no runner here can go on with says so, rather than waiting forever.
                yield* agentFor(agents, runId, "", saved.envelope)
                const answer = summary(saved.state, saved.envelope)
                if (isSettled(answer.status) || now >= deadline) return answer
              } else if (now >= deadline) {
                return yield* new RunNotFound({ runId })
              }
              // Not stored yet, or queued, or handed over: wait for a Start or Resume here.
              yield* Effect.timeoutOption(Deferred.await(next), deadline - now)
              return undefined
            }),
            drop,
          )
          if (answer !== undefined) return answer
        }
      })),
    Events: ({ payload }) =>
      Rpc.fork(Effect.gen(function*() {
        // A cursor that read all of the run's head: nothing new while the head stands
        // (one cheap read per idle ask, not a load of every checkpoint).
        if (payload.after.seq > 0) {
          const head = yield* Effect.catch(store.head(runId), rejected(runId))
          if (head === payload.after.seq) return { events: [], cursor: payload.after }
        }
        const saved = yield* load(store, runId)
        if (saved === undefined) return yield* new RunNotFound({ runId })
        const registered = yield* agentFor(agents, runId, "", saved.envelope)
        return batchOf(saved, registered.name, payload.after, { maxEvents: payload.max, maxBytes: RunEvent.bounds.maxBytes })
      })),
    Cancel: () =>
      Rpc.fork(Effect.gen(function*() {
        // Known here before it is stored: the Start or Resume it races checks the store.
        cancelAsked = true
        last = undefined
        ahead = undefined
        // Stored first: a Start, Resume or redelivery after this honours it.
        yield* Effect.orDie(store.journalPut(runId, Cancellation.markerKey, "{}"))
        const controller = inFlight
        if (controller !== undefined) {
          // The run ends stopped (UserRequested) and checkpoints so itself.
          controller.abort()
          const saved = yield* load(store, runId)
          return saved === undefined ? null : summary(saved.state, saved.envelope)
        }
        const answer = (yield* ensureStopped(undefined, "")) ?? null
        if (answer !== null && queued === 0) last = answer
        signal()
        return answer
      })),
  })
})

/**
 * The entity's handlers as a layer (needs `Hookline` and the cluster's `Sharding`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: {
  readonly maxIdleTime?: string | number | undefined
  /** How long a runner shutting down lets its runs in flight end before effect/cluster's teardown (default: the settings' `terminationTimeout`). */
  readonly drainTimeout?: number | undefined
} = {}) =>
  Layer.unwrap(Effect.sync(() => {
    const drain = new Drain()
    const entity = HooklineRun.toLayer(handlers(drain), options.maxIdleTime === undefined ? {} : { maxIdleTime: options.maxIdleTime as never })
    // Built after the entity, so released before it: the runs end while the runner still
    // holds its shards, then effect/cluster's teardown begins.
    const draining = Layer.effectDiscard(Effect.addFinalizer(() => drain.close(options.drainTimeout ?? Settings.millisOf(Settings.defaults.terminationTimeout))))
    return draining.pipe(Layer.provide(entity))
  }))
