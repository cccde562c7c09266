/**
 * Checkpointing as a capability: `UseCheckpoints(store)` registers hooks that save the
 * run's deltas and journal every model answer and tool result, and gives the agent the
 * loader behind `agent.resume(runId)`. The loop knows no store: it only runs hooks.
 *
 * - BeforeExecution: a checkpoint (the first of a new run, or the delta of a resumed one).
 * - AfterInference, AfterToolUse (`every: "tool"`): the model's answer and each tool
 *   result go to the journal, keyed by the execution and the step or the `toolCallId`,
 *   before the loop commits them.
 * - BeforeInference, BeforeToolUse (on a resumed run): an answer or a result already in
 *   the journal is given back instead of calling the model or the tool again, so the
 *   unfinished step replays with the same tool call ids and no journaled tool runs twice.
 *   What it gives back is marked (`InferenceResponse.isReplayed`,
 *   `ToolExecution.isReplayed`), so hooks tell it from a call that ran.
 * - AfterStep, AfterExecution: a checkpoint. On a store that waits, a step the loop goes
 *   on from is sent at its AfterStep and awaited by the run's next store call, so the next
 *   model call runs while it commits (no tool starts before it is acknowledged).
 *
 * A crash after a tool's side effect and before its journal write is the one window
 * left: that call runs again on resume, with the same `idempotencyKey` in its context
 * (at-least-once, with the key to make it exactly-once where the tool's API allows).
 *
 * A run holds its run id's **lease** in the store from its first hook to AfterExecution
 * (BeforeExecution, priority 1,000,000: before every other hook), renewed by a fiber on
 * Effect's clock every third of its time to live. A run that cannot take it (another run
 * of that id holds it, in this process or another) does nothing: it stops at once with a
 * hard `RunLeased` stop signal, runs no model and no tool, writes nothing, and its
 * `agent.resume` rejects with the typed `RunLeased`. A run whose lease was lost (broken,
 * or taken after it expired) runs no more tools.
 *
 * A run that did not come through the loader (`agent.resume(runId)`) is a **new run**:
 * its first checkpoint is written with the lease, atomically only if its id is not
 * stored. A new run of a stored id does nothing, as a run refused the lease: it stops at
 * once with a hard `RunExists` stop signal, and its `agent.resume` rejects with the typed
 * `RunExists`; `ifExists: "replace"` replaces the stored run instead.
 *
 * @since 0.1.0
 */
import { AgentLoop, UseAll, UseHook, UseLoader, type Agent, type AgentBuilder } from "@hookline/agent"
import {
  AgentError,
  AgentState,
  Codecs,
  Hook,
  HookContext,
  HookTriggers,
  InferenceResponse,
  StopReason,
  StopSignal,
  ToolExecution,
} from "@hookline/core"
import { Clock, Duration, Effect, Exit, Fiber, Result } from "effect"
import * as Envelope from "./Envelope.js"
import * as AtOnce from "./internal/atOnce.js"
import * as AtOnceWrite from "./internal/atOnceWrite.js"
import * as ByReference from "./internal/byReference.js"
import * as Ending from "./internal/ending.js"
import * as JournalEntry from "./internal/journalEntry.js"
import * as Plan from "./internal/plan.js"
import * as RunStore from "./RunStore.js"
import * as StoreError from "./StoreError.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * `"tool"` (default): journal each model answer and tool result as it comes, so a
   * resumed run repeats no journaled call. `"step"`: checkpoints at step ends only; a
   * resumed run replays its unfinished step whole (the model and its tools again).
   */
  readonly every?: "tool" | "step" | undefined
  /**
   * How long a run's lease lasts unless renewed (default 30 seconds; at least 10 ms). The
   * run renews it every third of that while it runs, so only a holder that died (or
   * whose event loop stalled that long) loses it; a crashed holder's run can be resumed
   * once it expires, or at once after `RunStore.breakLease`.
   */
  readonly lease?: Duration.Input | undefined
  /**
   * What a new run (`agent.run(state)`, or `agent.resume` given a state rather than a
   * run id) does when its id is stored already. `"refuse"` (default): it does nothing and
   * stops with `RunExists` (the stored run, a pending approval included, is untouched).
   * `"replace"`: the stored run's checkpoints and journal are dropped and the new run's
   * first checkpoint written in their place, in one transaction.
   */
  readonly ifExists?: "refuse" | "replace" | undefined
  /**
   * Fields the run's checkpoints keep beside its state (`Envelope`: the agent's name, its
   * tool set, the trace context to link a resumed run to), never in `state.metadata`. A
   * function is asked at each checkpoint; the fields it leaves out are kept as stored.
   * Read them back with `RunStore.load(store, runId)` (`saved.envelope`).
   */
  readonly envelope?: Envelope.Envelope | ((state: AgentState) => Envelope.Envelope | undefined) | undefined
}

/** The hooks run around everything else: replay first is not needed, saving last is. */
const lastPriority = -1_000_000
/** The lease is taken before any other hook runs, and tools are refused before any other hook sees them. */
const firstPriority = 1_000_000

/** The default time to live of a run's lease (docs/decisions.md says why). */
const defaultLease: Duration.Input = "30 seconds"

/**
 * The stop reason of a run that could not take its run's lease: hard (no continuation
 * lifts it), ranked below `ErrorForbade` and above every other built-in reason.
 *
 * @since 0.1.0
 * @category models
 */
export const RunLeasedReason: StopReason.Custom = StopReason.custom({ name: "RunLeased", priority: 750, kind: "hard" })

/**
 * The stop reason of a new run whose id is stored already: hard, ranked with
 * `RunLeased` (a run refused either way did nothing).
 *
 * @since 0.1.0
 * @category models
 */
export const RunExistsReason: StopReason.Custom = StopReason.custom({ name: "RunExists", priority: 750, kind: "hard" })

/**
 * The stop reason of a run whose last checkpoint the store refused because another
 * owner moved the run's head (`CheckpointConflict`): its end was never stored. Hard,
 * ranked with `RunLeased`. `agent.resume` rejects with the typed `CheckpointConflict`.
 *
 * @since 0.1.0
 * @category models
 */
export const CheckpointConflictReason: StopReason.Custom = StopReason.custom({ name: "CheckpointConflict", priority: 750, kind: "hard" })

/** The source of the stop signal a refused run gets (no lease, or its id is stored). */
const leaseSource = "store:lease"
/** The source of the stop signal of a run whose last checkpoint conflicted. */
const conflictSource = "store:checkpoint"

// A run whose end this owner did not store (its lease lost, its last checkpoint refused),
// learned after the loop concluded it: the signal, and a `completed` or `suspended` run
// ends `stopped` as the loop ends a hard stop, with no call left waiting on this caller
// (the store holds an earlier checkpoint, or another owner's). A `failed` or `stopped`
// run keeps its status and reason.
const unstoredEnd = (state: AgentState, signal: StopSignal.StopSignal): AgentState => {
  const signalled = AgentState.withStopSignal(state, signal)
  const status = signalled.execution.status
  if (status !== "completed" && status !== "suspended") return signalled
  const reason = StopSignal.highest(signalled.execution.stopSignals)?.reason
  return AgentState.withStopReason(AgentState.withPendingCalls(AgentState.withStatus(signalled, "stopped"), undefined), reason)
}

const leaseMillis = (input: Duration.Input | undefined): number => {
  const parsed = Duration.fromInput(input ?? defaultLease)
  const ms = parsed._tag === "Some" ? Duration.toMillis(parsed.value) : Number.NaN
  if (!Number.isFinite(ms) || ms < 10) {
    let shown: string
    try {
      shown = JSON.stringify(input) ?? String(input)
    } catch {
      shown = typeof input
    }
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("lease", `expected a finite duration of at least 10 ms ("30 seconds", a number of ms), got ${shown}`),
    )
  }
  return ms
}

interface Tracked {
  readonly owner: string
  // The heartbeat that renews the lease; interrupted at AfterExecution.
  heartbeat: Fiber.Fiber<void> | undefined
  // The store said another holds the lease now: the run runs no more tools.
  lost: boolean
  // When the store last confirmed the lease (taken or renewed), on Effect's clock.
  confirmedAt: number
  saved: RunStore.Saved | undefined
  // The store refused a checkpoint of this run: another writer moved its head.
  conflict: StoreError.CheckpointConflict | undefined
  // Replaying: the run was resumed and the journal may still hold what comes next.
  replaying: boolean
  // Keys answered from the journal (not written again).
  readonly replayed: Set<string>
  // Journal entries not written yet: each goes to the store before any tool of the run
  // starts (BeforeToolUse), or is dropped once the step's checkpoint, which holds it,
  // committed (AfterStep); AfterExecution writes what is left before its checkpoint.
  readonly deferred: Array<JournalEntry.Entry>
  // The checkpoint of a step that ran no tool and stops the run, checked and not yet
  // written (stores with an ending only): the run's end writes it with its own, in one
  // statement; any other write of the run writes it first.
  held: Held | undefined
  // The checkpoint of a step the loop goes on from, sent at its AfterStep and not awaited
  // there: the run's next store call waits for it first (`settlePending`).
  pending: Pending | undefined
}

interface Pending {
  readonly fiber: Fiber.Fiber<void, SaveFailure>
  // What the run is as stored once it committed.
  readonly saved: RunStore.Saved
  // How many of the run's deferred journal entries (the first ones) it holds.
  readonly covers: number
}

interface Held {
  readonly commit: RunStore.Commit
  readonly saved: RunStore.Saved
}

type SaveFailure = StoreError.CheckpointConflict | StoreError.RunExists | StoreError.CheckpointRefused | StoreError.StoreFailed

// `effect`, then `value`: an Exit when `effect` is one (a hook that answers at once).
// `f()` once `effect` succeeded, at once when it answered at once (no fiber for an Exit).
const thenMap = <A, E>(effect: Effect.Effect<unknown, E>, f: () => A): Effect.Effect<A, E> =>
  Exit.isExit(effect) ? (Exit.isSuccess(effect) ? Exit.succeed(f()) : effect as Exit.Exit<never, E>) : Effect.map(effect, f)
const thenAnswer = <A, E>(effect: Effect.Effect<unknown, E>, value: A): Effect.Effect<A, E> => thenMap(effect, () => value)

const inferenceKey = (state: AgentState): string =>
  `inference:${state.execution.startedAt ?? 0}:${state.execution.steps.length}`
const toolKey = (state: AgentState, toolCallId: string): string => `tool:${state.execution.startedAt ?? 0}:${toolCallId}`

// The envelope of each checkpoint: a fixed one is checked when the agent is built.
const envelopeSource = (
  source: Options["envelope"],
): (state: AgentState) => Envelope.Envelope | undefined => {
  if (source === undefined) return () => undefined
  if (typeof source === "function") return source
  const decoded = Codecs.decode(Envelope.EnvelopeCodec, source)
  if (Result.isFailure(decoded)) {
    const path = decoded.failure.path
    throw new AgentError.HooklineError(AgentError.invalidConfiguration(path === "" ? "envelope" : `envelope.${path}`, decoded.failure.message))
  }
  const envelope = decoded.success
  return () => envelope
}

/**
 * The hooks and the loader, for a store.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseCheckpoints = (store: RunStore.RunStore, options: Options = {}): AgentBuilder.Capability => {
  const journaling = (options.every ?? "tool") === "tool"
  const ttl = leaseMillis(options.lease)
  // Per run (AgentLoop.currentRun, not the state's id: two runs of one stored run share
  // it): what the run last saved. A run that holds its lease has a record; a refused
  // run has none. AfterExecution drops it.
  const runs = new Map<unknown, Tracked>()
  // The runs `load` read, by their context (the run's state shares it until a hook edits
  // it; the lease hook runs first): a resume goes on from the checkpoint it loaded.
  const loads = new WeakMap<object, RunStore.Saved>()
  // Per run id: the conflict that ended its last run here, for `agent.resume` to fail
  // with (settle takes it; the next run on that id starts without it).
  const conflicts = new Map<string, StoreError.CheckpointConflict>()
  // The refusals, by their stop signal, for `settle` to fail the resume with.
  const refusals = new WeakMap<StopSignal.StopSignal, StoreError.RunLeased | StoreError.RunExists>()
  const replace = (options.ifExists ?? "refuse") === "replace"
  const envelopeOf = envelopeSource(options.envelope)
  if (options.ifExists !== undefined && options.ifExists !== "refuse" && options.ifExists !== "replace") {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("ifExists", `expected "refuse" or "replace", got ${JSON.stringify(options.ifExists) ?? typeof options.ifExists}`),
    )
  }

  // A store that answers at once (MemoryStore): the hooks write through it while they are
  // called and answer with an Exit, which the loop reads without the runtime; they do
  // what the Effects below do, in the same order.
  const atOnce = AtOnce.of(store)
  // Measures what may be kept by reference (internal/byReference.ts).
  const measured = ByReference.measure()

  // Read at once (hooks are called in their run's fiber): no Effect per look-up, and a
  // pure hook (journalTool) can find its run's record too.
  const keyNow = (state: AgentState): unknown => AgentLoop.currentRunNow() ?? state.id
  const keyOf = (state: AgentState) => Effect.sync(() => keyNow(state))
  // A hook of the run's record: `f` with it, or the context as it came for a run that has
  // none (refused). `f` is made once, not per call: no closure per hook call.
  const withRecord = (f: (ctx: HookContext, entry: Tracked) => Effect.Effect<HookContext, unknown>) => (ctx: HookContext) => {
    const entry = runs.get(keyNow(ctx.state))
    return entry === undefined ? Effect.succeed(ctx) : f(ctx, entry)
  }

  // A continuation's next turn (`derive`) is the run it loaded, made from the saved state:
  // its first checkpoint is the delta from that save, under the run's lease.
  const load = (runId: string, derive?: Agent.Derive) =>
    Effect.flatMap(RunStore.loadEffect(store, runId), (saved) => {
      if (saved === undefined) return Effect.fail(StoreError.runNotFound(runId))
      return Effect.map(derive === undefined ? Effect.succeed(saved.state) : derive(saved.state), (state) => {
        loads.set(state.context, saved)
        return state
      })
    })

  // Writes the run's deferred journal entries, oldest first (each is taken off the list
  // once the store acknowledged it), after a held step's checkpoint: no tool starts and
  // nothing is journaled before it.
  const flush = (runId: string, entry: Tracked): Effect.Effect<void, SaveFailure> => {
    if (entry.pending !== undefined) return Effect.andThen(settlePending(entry), () => flush(runId, entry))
    if (entry.held !== undefined) return Effect.andThen(writeHeld(entry), () => flush(runId, entry))
    if (entry.deferred.length === 0) return Exit.void
    if (atOnce !== undefined) {
      for (let next = entry.deferred[0]; next !== undefined; next = entry.deferred[0]) {
        // A vouched entry goes by reference to a store that keeps it (MemoryStore).
        const put = next.body === undefined && atOnce.journalKeep !== undefined
          ? atOnce.journalKeep(runId, next.key, next)
          : atOnce.journalPut(runId, next.key, JournalEntry.textOf(next))
        if (Exit.isFailure(put)) return put
        entry.deferred.shift()
      }
      return Exit.void
    }
    return flushEffect(runId, entry)
  }
  const flushEffect = (runId: string, entry: Tracked): Effect.Effect<void, StoreError.StoreFailed> =>
    Effect.suspend(() => {
      const next = entry.deferred[0]
      if (next === undefined) return Effect.void
      return Effect.flatMap(store.journalPut(runId, next.key, JournalEntry.textOf(next)), () => {
        entry.deferred.shift()
        return flushEffect(runId, entry)
      })
    })

  // A run that lost its lease writes no more checkpoints: the new holder's are the run's.
  // A checkpoint holds the entries deferred before it (the step's answer and results are
  // in its state), so they are dropped once it committed.
  // A run that knows it lost its lease also stops (hard RunLeased) at its next checkpoint,
  // though no tool of it was refused: else it would end completed with a state the store
  // never held (lease fuzzer, seed 43613431).
  const checkpoint = (ctx: HookContext, entry: Tracked): Effect.Effect<HookContext, SaveFailure> => {
    if (entry.pending !== undefined) return Effect.andThen(settlePending(entry), () => checkpoint(ctx, entry))
    if (entry.held !== undefined) return Effect.andThen(writeHeld(entry), () => checkpoint(ctx, entry))
    if (entry.lost) return Exit.succeed(lostStop(ctx))
    return atOnce !== undefined && entry.saved !== undefined ? checkpointNow(ctx, entry, entry.saved, atOnce) : checkpointEffect(ctx, entry)
  }
  const checkpointNow = (ctx: HookContext, entry: Tracked, previous: RunStore.Saved, now: AtOnce.AtOnce): Exit.Exit<HookContext, SaveFailure> => {
    const ready = Plan.next(ctx.state, previous, envelopeOf(ctx.state))
    if (ready !== undefined) {
      const written = AtOnceWrite.commitNext(measured, now, ctx.state, ready, Date.now())
      // What the step's journal entries measured was for this checkpoint (it walks the
      // same answer and results); the next step's are new, so nothing is held past it.
      measured.forget()
      if (Exit.isFailure(written)) {
        for (const reason of written.cause.reasons) if (reason._tag === "Fail" && reason.error._tag === "CheckpointConflict") entry.conflict ??= reason.error
        return written as Exit.Exit<never, SaveFailure>
      }
    }
    entry.saved = ready === undefined ? previous : ready.saved
    entry.deferred.length = 0
    return Exit.succeed(ctx)
  }
  // A checkpoint write whose conflict stays with the run (for `settle`), whatever it fails with.
  const notingConflict = <A, E extends SaveFailure>(entry: Tracked, write: Effect.Effect<A, E>, onConflict?: () => void) =>
    Effect.tapError(write, (error: SaveFailure) =>
      Effect.sync(() => {
        if (error._tag !== "CheckpointConflict") return
        entry.conflict ??= error
        onConflict?.()
      }))
  const checkpointEffect = (ctx: HookContext, entry: Tracked) => {
    // This path writes text (RunStore.saveEffect): the measures are not needed.
    measured.forget()
    return Effect.map(
      notingConflict(entry, RunStore.saveEffect(store, ctx.state, entry.saved, undefined, envelopeOf(ctx.state))),
      (saved) => {
        entry.saved = saved
        entry.deferred.length = 0
        return ctx
      },
    )
  }

  // Renews the lease every third of its time to live, on Effect's clock. A renewal the
  // store refused (another holds it) ends it and marks the run; a store that failed is
  // tried again at the next beat (the lease may still be ours).
  const heartbeat = (runId: string, entry: Tracked): Effect.Effect<void> =>
    Effect.gen(function*() {
      while (!entry.lost) {
        yield* Effect.sleep(Math.max(1, Math.floor(ttl / 3)))
        const now = yield* Clock.currentTimeMillis
        yield* renew(runId, entry, now)
      }
    })

  const renew = (runId: string, entry: Tracked, now: number): Effect.Effect<void> =>
    Effect.map(Effect.result(store.renewLease({ runId, owner: entry.owner, expiresAt: now + ttl })), (held) => {
      if (Result.isFailure(held)) return
      if (held.success) entry.confirmedAt = Math.max(entry.confirmedAt, now)
      else entry.lost = true
    })

  const refuse = (ctx: HookContext, reason: StopReason.Custom, error: StoreError.RunLeased | StoreError.RunExists) => {
    const signal = StopSignal.make(reason, error.message, leaseSource)
    refusals.set(signal, error)
    return HookContext.withState(ctx, AgentState.withStopSignal(ctx.state, signal))
  }

  // Takes the run id's lease before any other hook, and writes a new run's first
  // checkpoint (insert if absent): the run goes on with a record, or stops at once with a
  // hard RunLeased or RunExists signal and no record (nothing more of it runs or is
  // written here).
  const takeLease = Hook.effect((ctx: HookContext) =>
    Effect.gen(function*() {
      const key = yield* keyOf(ctx.state)
      const runId = ctx.state.id
      const owner = crypto.randomUUID()
      const now = yield* Clock.currentTimeMillis
      const taken = yield* Effect.result(store.takeLease({ runId, owner, expiresAt: now + ttl }, now))
      if (Result.isFailure(taken)) {
        if (taken.failure._tag !== "RunLeased") return yield* Effect.fail(taken.failure)
        return refuse(ctx, RunLeasedReason, taken.failure)
      }
      let saved = loads.get(ctx.state.context)
      const loaded = saved !== undefined
      if (saved !== undefined) {
        loads.delete(ctx.state.context)
      } else {
        // A new run. Its lease goes again at once unless the run goes on.
        const envelope = envelopeOf(ctx.state)
        // On MemoryStore the first checkpoint is kept by reference too (internal/byReference.ts).
        const now = atOnce === undefined ? undefined : AtOnceWrite.createFirst(measured, atOnce, ctx.state, envelope, replace, Date.now())
        const created = yield* Effect.result(now ?? RunStore.startEffect(store, ctx.state, { replace, envelope }))
        if (Result.isFailure(created)) {
          yield* Effect.ignore(store.releaseLease(runId, owner))
          if (created.failure._tag !== "RunExists") return yield* Effect.fail(created.failure)
          return refuse(ctx, RunExistsReason, created.failure)
        }
        saved = created.success
      }
      const entry: Tracked = {
        owner,
        heartbeat: undefined,
        lost: false,
        confirmedAt: now,
        saved,
        conflict: undefined,
        replaying: journaling && loaded,
        replayed: new Set(),
        deferred: [],
        held: undefined,
        pending: undefined,
      }
      runs.set(key, entry)
      // Detached: the hook's fiber ends with the hook; AfterExecution (which fires on
      // every path, interruption included) interrupts it.
      entry.heartbeat = yield* Effect.forkDetach(heartbeat(runId, entry))
      return ctx
    })
  )

  // A store that commits a run's last checkpoint and releases its lease in one
  // statement (the SQL stores: internal/ending.ts).
  const ending = Ending.of(store)

  // The last checkpoint and the lease's release in one statement. Nothing to write, a
  // lost lease or a refused checkpoint: `checkpoint`'s way, the release apart. The
  // statement releases the lease on a conflict too; on a failure, the release is tried
  // again apart (`finish`).
  const checkpointAndRelease = (ctx: HookContext, entry: Tracked, ends: Ending.Ending, released: () => void): Effect.Effect<HookContext, SaveFailure> => {
    if (entry.pending !== undefined) return Effect.andThen(settlePending(entry), () => checkpointAndRelease(ctx, entry, ends, released))
    if (entry.lost || entry.saved === undefined) return checkpoint(ctx, entry)
    measured.forget()
    // With a held step: one checkpoint from the last one written, holding both; if it is
    // refused, the held one is written first and the last one checked apart, as before.
    const planned = RunStore.nextSave(ctx.state, entry.saved, undefined, envelopeOf(ctx.state))
    const ready = Result.isSuccess(planned) ? planned.success ?? entry.held : undefined
    if (ready === undefined) return checkpoint(ctx, entry)
    entry.held = undefined
    return Effect.map(
      notingConflict(entry, ends.commitAndRelease(ready.commit, entry.owner), released),
      () => {
        released()
        entry.saved = ready.saved
        entry.deferred.length = 0
        return ctx
      },
    )
  }

  // The run's last checkpoint; then the heartbeat stops and the lease is released,
  // whatever happens (a conflict it met stays, for `settle`). On a store with an ending,
  // the checkpoint and the release are one statement.
  const finish = (ctx: HookContext) =>
    Effect.flatMap(keyOf(ctx.state), (key) => {
      const entry = runs.get(key)
      if (entry === undefined) return Effect.succeed(ctx)
      let released = false
      const last = ending === undefined ? () => checkpoint(ctx, entry) : () => checkpointAndRelease(ctx, entry, ending, () => {
        released = true
      })
      // Entries of a step that ended without its checkpoint (a failure, a suspension, an
      // abort) are written first: the state may not hold them. (With none, a held step's
      // checkpoint is not written apart: the last one holds it.) A step's checkpoint still
      // in flight is awaited before that: it holds the entries deferred before it.
      const write = () => entry.deferred.length === 0 ? last() : Effect.andThen(flush(ctx.state.id, entry), last)
      const written = entry.pending === undefined ? Effect.suspend(write) : Effect.andThen(settlePending(entry), write)
      return Effect.ensuring(
        Effect.catchIf(written, (error): error is StoreError.CheckpointConflict => error._tag === "CheckpointConflict", (error) => Effect.succeed(conflictStop(ctx, error))),
        Effect.suspend(() => {
          runs.delete(key)
          if (entry.conflict !== undefined) conflicts.set(ctx.state.id, entry.conflict)
          return Effect.andThen(
            entry.heartbeat === undefined ? Effect.void : Fiber.interrupt(entry.heartbeat),
            released ? Effect.void : Effect.ignore(store.releaseLease(ctx.state.id, entry.owner)),
          )
        }),
      )
    })

  // The run's end on a store that answers at once (MemoryStore): `finish`'s steps in its
  // order without Effect's runtime (the entries left, the last checkpoint, a conflict as
  // the stop; then whatever happened: the record dropped, the heartbeat interrupted, the
  // lease released), answered with an Exit. Undefined when a step must wait (a checkpoint
  // in flight or held: never on such a store), for `finish` to do it. The heartbeat is
  // not running while its run's hook is (one thread): interrupted, it ends at once (a
  // sleep's timer cleared); were it not done, the release waits for it, as in `finish`.
  const finishNow = (ctx: HookContext, now: AtOnce.AtOnce): Effect.Effect<HookContext, SaveFailure> | undefined => {
    const release = now.releaseLease
    if (release === undefined || ending !== undefined) return undefined
    const key = keyNow(ctx.state)
    const entry = runs.get(key)
    if (entry === undefined) return Exit.succeed(ctx)
    if (entry.pending !== undefined || entry.held !== undefined || entry.saved === undefined) return undefined
    let answer: Exit.Exit<HookContext, SaveFailure>
    // What throws is the hook's defect, as in `finish`'s Effect, and the end still happens.
    try {
      // Not at once cannot happen here (nothing is in flight or held), but `finish` waits then.
      const flushed = flush(ctx.state.id, entry)
      if (!Exit.isExit(flushed)) return undefined
      const written = Exit.isFailure(flushed) ? flushed : checkpoint(ctx, entry)
      if (!Exit.isExit(written)) return undefined
      answer = written as Exit.Exit<HookContext, SaveFailure>
      if (Exit.isFailure(answer)) {
        for (const reason of answer.cause.reasons) {
          if (reason._tag === "Fail" && reason.error._tag === "CheckpointConflict") answer = Exit.succeed(conflictStop(ctx, reason.error))
        }
      }
    } catch (defect) {
      answer = Exit.die(defect)
    }
    runs.delete(key)
    if (entry.conflict !== undefined) conflicts.set(ctx.state.id, entry.conflict)
    const heartbeat = entry.heartbeat
    heartbeat?.interruptUnsafe(Fiber.getCurrent()?.id)
    const released = () => {
      release(ctx.state.id, entry.owner)
      return answer
    }
    return heartbeat === undefined || heartbeat.pollUnsafe() !== undefined ? released() : Effect.flatMap(Fiber.await(heartbeat), released)
  }
  const end = (ctx: HookContext): Effect.Effect<HookContext, unknown> => (atOnce === undefined ? undefined : finishNow(ctx, atOnce)) ?? finish(ctx)

  // The end of a run `agent.resume` started: a run refused the lease fails the resume
  // with RunLeased, a new run of a stored id (a state given to resume) with RunExists;
  // the loser of two resumes (its checkpoint refused) with the typed
  // CheckpointConflict; its state was never stored, and nothing of the winner's was
  // overwritten.
  const settle = (state: AgentState) =>
    Effect.suspend((): Effect.Effect<AgentState, StoreError.RunLeased | StoreError.RunExists | StoreError.CheckpointConflict> => {
      const refused = state.execution.stopSignals.find((s) => s.source === leaseSource)
      if (refused !== undefined) {
        return Effect.fail(refusals.get(refused) ?? StoreError.runLeased(state.id, Number.NaN))
      }
      const conflict = conflicts.get(state.id)
      conflicts.delete(state.id)
      return conflict === undefined ? Effect.succeed(state) : Effect.fail(conflict)
    })

  // The checkpoint after the BeforeExecution hooks: the delta from the one the run was
  // loaded or created with (nothing, when no hook changed the state).
  const start = Hook.effect(withRecord(
    (ctx, entry) => {
      conflicts.delete(ctx.state.id)
      return checkpoint(ctx, entry)
    })
  )

  // A lease the store has not confirmed for half its time to live (the process froze or
  // starved, and the heartbeat's renewal has not answered) is confirmed before a tool runs:
  // a zombie whose lease was taken over learns it here, not after its next tool.
  // The clock is the run's fiber's (hooks are called in it), read at once.
  const confirm = (runId: string, entry: Tracked | undefined): Effect.Effect<void> => {
    if (entry === undefined || entry.lost) return Exit.void
    const clock = Fiber.getCurrent()?.getRef(Clock.Clock)
    if (clock === undefined) return Effect.flatMap(Clock.currentTimeMillis, (now) => (now - entry.confirmedAt > ttl / 2 ? renew(runId, entry, now) : Effect.void))
    const now = clock.currentTimeMillisUnsafe()
    return now - entry.confirmedAt > ttl / 2 ? renew(runId, entry, now) : Exit.void
  }

  // A run with no lease (refused, or lost since) runs no tool: the block is final.
  const guardTool = Hook.effect((ctx: HookContext) => {
    if (ctx.toolCall === undefined || ctx.toolExecution !== undefined || ctx.toolExecutionBlocked) return Effect.succeed(ctx)
    const entry = runs.get(keyNow(ctx.state))
    // No tool starts before the previous step's checkpoint is acknowledged (with
    // `every: "tool"` the answer's journal entry waited for it already).
    if (entry?.pending !== undefined) return Effect.andThen(settlePending(entry), () => Effect.map(confirm(ctx.state.id, entry), () => guarded(ctx, entry)))
    const confirmed = confirm(ctx.state.id, entry)
    return Exit.isExit(confirmed) ? Exit.succeed(guarded(ctx, entry)) : Effect.map(confirmed, () => guarded(ctx, entry))
  })

  // After the confirmation: a run with no lease (refused, or lost since) runs no tool.
  const guarded = (ctx: HookContext, entry: Tracked | undefined): HookContext => {
    if (entry !== undefined && !entry.lost) return ctx
    const blocked = HookContext.withToolExecutionBlocked(ctx, `run ${ctx.state.id} does not hold its lease: another run of it may hold it`)
    return entry === undefined ? blocked : lostStop(blocked)
  }

  // Lost while running: the run stops after this step, as a refused run would. Learned at
  // its end (AfterExecution: the loop concluded it completed or suspended already), it ends
  // stopped with RunLeased as the loop would have ended it: else it ends completed (lease
  // fuzzer, seed -1155538957) or suspended with a state the store never held.
  const lostStop = (ctx: HookContext): HookContext => {
    if (ctx.state.execution.stopSignals.some((s) => s.source === leaseSource)) return ctx
    const error = StoreError.runLost(ctx.state.id)
    const signal = StopSignal.make(RunLeasedReason, error.message, leaseSource)
    refusals.set(signal, error)
    return HookContext.withState(ctx, unstoredEnd(ctx.state, signal))
  }

  // The run's last checkpoint refused (another owner moved its head): the run ends with
  // the conflict as a hard stop, not completed or suspended with a state the store never
  // held; `settle` fails a resume with the typed conflict, as before.
  const conflictStop = (ctx: HookContext, error: StoreError.CheckpointConflict): HookContext =>
    HookContext.withState(ctx, unstoredEnd(ctx.state, StopSignal.make(CheckpointConflictReason, error.message, conflictSource)))

  const replayInference = Hook.effect(withRecord(
    (ctx, entry) => {
      if (!entry.replaying || ctx.response !== undefined) return Effect.succeed(ctx)
      const key = inferenceKey(ctx.state)
      return Effect.flatMap(afterPending(entry, store.journalGet(ctx.state.id, key)), (body) => {
        if (body === undefined) {
          // Nothing past this point was journaled: the rest of the run is new.
          entry.replaying = false
          return Effect.succeed(ctx)
        }
        entry.replayed.add(key)
        // Marked, so hooks tell an answer given back from a model call made in this run.
        return Effect.map(JournalEntry.decode(ctx.state.id, key, Codecs.InferenceResponse, body), (response) =>
          HookContext.withResponse(ctx, InferenceResponse.asReplayed(response)))
      })
    })
  )

  const journalInference = Hook.effect(withRecord(
    (ctx, entry) => {
      const key = inferenceKey(ctx.state)
      if (ctx.response === undefined || entry.replayed.has(key)) return Effect.succeed(ctx)
      const made = JournalEntry.entry(measured, ctx.state.id, key, Codecs.InferenceResponse, ctx.response)
      if (Result.isFailure(made)) return Effect.fail(made.failure)
      // An answer with tool calls is durable before its tools run, so a resumed run replays
      // the same calls (ids, idempotency keys); one without waits for the step's checkpoint
      // (a crash before it asks the model again, and nothing ran on that answer).
      entry.deferred.push(made.success)
      return ctx.response.toolCalls.length === 0 ? Exit.succeed(ctx) : thenAnswer(flush(ctx.state.id, entry), ctx)
    })
  )

  // On a resumed run, a journaled result in place of the tool (marked, so hooks such as an
  // audit log tell it from a call that ran); then, replayed or not, no tool starts while
  // a result of its run is not durable: the deferred entries go first. One hook, so a
  // tool's start costs one Effect hook.
  const startTool = Hook.effect(withRecord(
    (ctx, entry) => {
      const call = ctx.toolCall
      const replay = entry.replaying && call !== undefined && ctx.toolExecution === undefined && !ctx.toolExecutionBlocked
      if (!replay) return thenMap(flush(ctx.state.id, entry), () => stillHeld(ctx, entry))
      const key = toolKey(ctx.state, call.id)
      return Effect.flatMap(afterPending(entry, store.journalGet(ctx.state.id, key)), (body) => {
        if (body !== undefined) entry.replayed.add(key)
        const replayed = body === undefined ? Effect.succeed(ctx) : Effect.map(
          JournalEntry.decode(ctx.state.id, key, Codecs.ToolExecution, body),
          (execution) => HookContext.withToolExecution(ctx, ToolExecution.asReplayed(execution)),
        )
        const written = entry.deferred.length === 0 ? replayed : Effect.flatMap(replayed, (out) => Effect.as(flush(ctx.state.id, entry), out))
        return Effect.map(written, (out) => stillHeld(out, entry))
      })
    })
  )

  // `store:lease_tool` checked the lease before this hook's store calls; the heartbeat may
  // have learned it was lost while they were answered (a journal write that takes time:
  // lease fuzzer, seed 937912959). A call that would run is then refused as that hook
  // refuses it.
  const stillHeld = (ctx: HookContext, entry: Tracked): HookContext =>
    entry.lost && ctx.toolCall !== undefined && ctx.toolExecution === undefined && !ctx.toolExecutionBlocked ? guarded(ctx, entry) : ctx

  // Pure (no I/O: the entry waits for the step's checkpoint or the next tool's flush), so
  // AfterToolUse stays on the loop's synchronous path. A refused entry is thrown: the
  // stack makes it this hook's HookFailed, with the JournalRefused's text.
  const journalTool: Hook.Hook = (ctx) => {
    const call = ctx.toolCall
    const execution = ctx.toolExecution
    if (call === undefined || execution === undefined) return ctx
    const entry = runs.get(keyNow(ctx.state))
    if (entry === undefined) return ctx
    const key = toolKey(ctx.state, call.id)
    if (entry.replayed.has(key)) return ctx
    // A call refused because the run lost its lease is not the call's result: journaled,
    // the new owner would replay the refusal instead of running the call.
    if (entry.lost && execution.status === "blocked") return ctx
    const made = JournalEntry.entry(measured, ctx.state.id, key, Codecs.ToolExecution, execution)
    if (Result.isFailure(made)) throw made.failure
    // Written before the next tool of the run starts, else with the step's checkpoint
    // (which holds it: then it is never encoded).
    entry.deferred.push(made.success)
    return ctx
  }

  // Writes the held step's checkpoint (a store that fails or refuses it ends the hook
  // that asked, as the step's own hook would have failed).
  const writeHeld = (entry: Tracked): Effect.Effect<void, SaveFailure> => {
    const held = entry.held
    if (held === undefined) return Exit.void
    entry.held = undefined
    // A run that learned it lost its lease writes no more checkpoints, a held one included.
    if (entry.lost) return Exit.void
    return Effect.map(
      notingConflict(entry, store.commit(held.commit)),
      () => {
        entry.saved = held.saved
      },
    )
  }

  // A step that ran no tool (its answer asked for none) and stops the run: nothing of it
  // runs again on a resume but its model call, as when a crash comes before its checkpoint.
  const quietEnd = (state: AgentState): boolean => {
    const execution = state.execution
    const last = execution.steps.at(-1)
    return execution.stopSignals.length > 0 && last !== undefined && last.toolExecutions.length === 0 &&
      (last.response?.toolCalls.length ?? 0) === 0 && execution.pendingCalls === undefined && execution.suspendedStep === undefined
  }

  // On a store with an ending, such a step's checkpoint is checked now (a refusal fails
  // this hook, as writing it would) and held for the run's end, which writes it with its
  // own in one statement; an OnStop continuation writes it before anything else.
  // A step the loop goes on from (no stop signal) on a store that waits (not one that
  // answers at once): its checkpoint is sent now and awaited by the run's next store call.
  const checkpointStep = Hook.effect(withRecord((ctx, entry) => stepCheckpoint(ctx, entry)))
  const stepCheckpoint = (ctx: HookContext, entry: Tracked): Effect.Effect<HookContext, SaveFailure> => {
    if (entry.pending !== undefined) return Effect.andThen(settlePending(entry), () => stepCheckpoint(ctx, entry))
    if (atOnce === undefined && !entry.lost && entry.saved !== undefined && entry.held === undefined && ctx.state.execution.stopSignals.length === 0) {
      return send(ctx, entry, entry.saved)
    }
    if (ending === undefined || entry.lost || entry.saved === undefined || entry.held !== undefined || !quietEnd(ctx.state)) {
      return checkpoint(ctx, entry)
    }
    measured.forget()
    const planned = RunStore.nextSave(ctx.state, entry.saved, undefined, envelopeOf(ctx.state))
    if (Result.isFailure(planned)) return Effect.fail(planned.failure)
    if (planned.success !== undefined) entry.held = planned.success
    // The step's answer is in the held checkpoint, as in a written one.
    entry.deferred.length = 0
    return Exit.succeed(ctx)
  }

  // -- A step's checkpoint in flight ---------------------------------------------------
  // Sent at the step's AfterStep as before (what is durable when is unchanged), so the
  // loop's work up to the run's next store call (the next model call included) runs while
  // the store commits it; that call waits for its outcome first. A failure or a conflict
  // surfaces there, failing that hook as it failed AfterStep's before.

  // Checks and sends the step's checkpoint, keeping the fiber that waits for it.
  const send = (ctx: HookContext, entry: Tracked, previous: RunStore.Saved): Effect.Effect<HookContext, SaveFailure> => {
    measured.forget()
    const planned = RunStore.nextSave(ctx.state, previous, undefined, envelopeOf(ctx.state))
    if (Result.isFailure(planned)) return Effect.fail(planned.failure)
    const ready = planned.success
    if (ready === undefined) {
      entry.deferred.length = 0
      return Exit.succeed(ctx)
    }
    const covers = entry.deferred.length
    // Detached: the run's interruption does not cut the wait short (AfterExecution awaits
    // it). A commit that did not answer at once is given one turn of the event loop before
    // the hook answers: a driver may put the statement on the wire only on a later tick
    // (pg's pool hands a query an idle connection with `process.nextTick`), and the loop's
    // work up to the next model call would otherwise run before it leaves (a trace of pg's
    // `Client.query` showed the model called first).
    return Effect.flatMap(Effect.forkDetach(notingConflict(entry, store.commit(ready.commit)), { startImmediately: true }), (fiber) => {
      entry.pending = { fiber, saved: ready.saved, covers }
      return fiber.pollUnsafe() === undefined ? Effect.as(Effect.yieldNow, ctx) : Exit.succeed(ctx)
    })
  }

  // The outcome of the run's checkpoint in flight, taken once: acknowledged, it is what
  // the run has stored, and the entries it holds are dropped; else its failure, and the
  // entries made since it was sent (the next answer's) are not written: that model call
  // came only because the step did not wait, as nothing came after a failed step before.
  const settlePending = (entry: Tracked): Effect.Effect<void, SaveFailure> => {
    const pending = entry.pending
    if (pending === undefined) return Exit.void
    const done = pending.fiber.pollUnsafe()
    return done === undefined ? Effect.flatMap(Fiber.await(pending.fiber), (exit) => settled(entry, pending, exit)) : settled(entry, pending, done)
  }
  const settled = (entry: Tracked, pending: Pending, exit: Exit.Exit<void, SaveFailure>): Effect.Effect<void, SaveFailure> => {
    if (entry.pending !== pending) return Exit.void
    entry.pending = undefined
    if (Exit.isFailure(exit)) {
      entry.deferred.length = Math.min(entry.deferred.length, pending.covers)
      return exit
    }
    entry.saved = pending.saved
    entry.deferred.splice(0, pending.covers)
    return Exit.void
  }
  // `read`, once the checkpoint in flight settled: a run's store calls go one at a time.
  const afterPending = <A, E>(entry: Tracked, read: Effect.Effect<A, E>): Effect.Effect<A, E | SaveFailure> =>
    entry.pending === undefined ? read : Effect.andThen(settlePending(entry), read)

  const hook = (h: Hook.AnyHook<unknown>, triggers: HookTriggers.HookTriggers, name: string, priority = lastPriority) =>
    UseHook(h, { triggers, priority, name })

  return UseAll(
    hook(takeLease, HookTriggers.beforeExecution, "store:lease", firstPriority),
    hook(guardTool, HookTriggers.beforeToolUse, "store:lease_tool", firstPriority),
    hook(start, HookTriggers.beforeExecution, "store:checkpoint_start"),
    ...(journaling
      ? [
        hook(replayInference, HookTriggers.beforeInference, "store:replay_inference"),
        hook(journalInference, HookTriggers.afterInference, "store:journal_inference"),
        hook(startTool, HookTriggers.beforeToolUse, "store:replay_tool"),
        hook(journalTool, HookTriggers.afterToolUse, "store:journal_tool"),
      ]
      : []),
    hook(checkpointStep, HookTriggers.afterStep, "store:checkpoint_step"),
    hook(Hook.effect(end), HookTriggers.of("AfterExecution"), "store:checkpoint_end"),
    UseLoader(load, settle),
  )
}
