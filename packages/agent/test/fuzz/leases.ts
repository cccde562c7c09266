// A generator class for lost-lease refusals (hygiene, 27 Nov): a checkpointed run whose
// store refuses it because its lease is held, lost or taken, or because another owner
// moved its head mid-run. Another owner acts on the store at a store operation (counted
// from the run's first) or inside a tool call; the run's lease lives on the fuzzer's
// virtual clock, so heartbeats and expiries fall inside tools that sleep. After the run,
// a new owner recovers it from the store, as a supervisor would. The store ends a run in
// one statement or not (`ending`: the SQL stores' way, internal/ending.ts, which holds a
// final answer's step for the run's end), so every strike meets the held step too.
// The observed store's writes may take virtual time (`wait`), as a SQL store's do: a
// step's checkpoint is then in flight while the loop goes on (Checkpointing.ts, "in
// flight"), and heartbeats, strikes and the next model call fall inside it.
//
// The oracle (leaseViolations) is the rest of the fuzzer's: the run ends normally with a
// typed stop naming the lease (RunLeased; a conflict with another owner's checkpoint
// fails the run with the typed CheckpointConflict, docs/durability.md); nothing the store
// acknowledged is lost; no journaled tool call runs twice.
import { AgentBuilder, Decision, Tool, UseDriver, UseGuards, UseHook, UseLoopOptions, UseTools } from "@hookline/agent"
import { AgentState, Codecs, Hook, HookContext, HookTriggers, Message } from "@hookline/core"
import { MemoryStore, RunStore, StoreError, UseCheckpoints } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import { Cause, Clock, Effect, Exit } from "effect"
import fc from "fast-check"
import * as t from "io-ts"
// A store registered here ends a run in one statement, as the SQL stores do.
import * as StoreTesting from "@hookline/store/testing"
import { VirtualClock } from "./run.js"

/**
 * When the other owner acts: before the run's `index`-th store operation, inside its
 * `index`-th tool call, at its end (an AfterExecution hook above the store's, after
 * the last step's checkpoint, held or written, and before the run's last one), or just
 * before the run's `index`-th checkpoint (create or commit) lands in the store, after it
 * was sent and its `wait.commitBefore` passed (observed store only).
 */
export type Strike =
  | { readonly _tag: "Op"; readonly index: number }
  | { readonly _tag: "Tool"; readonly index: number }
  | { readonly _tag: "End" }
  | { readonly _tag: "Landing"; readonly index: number }

/**
 * How long the observed store's writes take, virtual ms (0: at once). A checkpoint (create,
 * commit, an ending's statement) lands in the store `commitBefore` after it is sent, and
 * the run hears the answer `commitAfter` later; a journal write answers after `journal`.
 */
export interface Wait {
  readonly commitBefore: number
  readonly commitAfter: number
  readonly journal: number
}

/** What the other owner does to the run's store. */
export type Fault =
  /** Holds the run's lease before the run starts. */
  | { readonly _tag: "Held" }
  /** Breaks the lease (a supervisor's take-over, `RunStore.breakLease`). */
  | { readonly _tag: "Break"; readonly at: Strike }
  /** Breaks the lease and takes it; with `commits`, writes a checkpoint of its own too. */
  | { readonly _tag: "TakeOver"; readonly at: Strike; readonly commits: boolean }
  /** Writes a checkpoint of the run (moves its head) without touching the lease. */
  | { readonly _tag: "MoveHead"; readonly at: Strike }
  /** The next `times` renewals fail (StoreFailed): the lease may still be the run's (observed store only). */
  | { readonly _tag: "RenewFails"; readonly at: Strike; readonly times: number }

export interface LeaseCase {
  /** `observed`: a wrapper records every store operation (the Effect path); `atOnce`: MemoryStore itself (the hooks answer at once), struck only in tools. */
  readonly store: "observed" | "atOnce"
  /** The store ends a run as the SQL stores do: its last checkpoint and the lease's release in one statement, a final answer's step held for it. */
  readonly ending: boolean
  /** Virtual ms the run's AfterExecution hook above the store's sleeps (a heartbeat may fall there). */
  readonly endWait: number
  readonly every: "tool" | "step"
  /** The lease's time to live, virtual ms (renewed every third of it). */
  readonly lease: number
  /** Per step, each call's virtual sleep in ms (0: a synchronous tool). */
  readonly steps: ReadonlyArray<ReadonlyArray<number>>
  readonly toolConcurrency: "sequential" | "concurrent"
  readonly fault: Fault
  /**
   * The step (from 0) whose first call waits for an approval: the run ends suspended, and
   * the recovering owner approves what the stored run waits on. Absent: no approval.
   */
  readonly approval?: number | undefined
  /** The observed store's write times (absent: every write answers at once). */
  readonly wait?: Wait | undefined
}

const strike = (store: LeaseCase["store"]): fc.Arbitrary<Strike> =>
  store === "atOnce"
    ? fc.oneof(
      { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Tool" as const), index: fc.integer({ min: 1, max: 6 }) }) },
      { weight: 1, arbitrary: fc.constant({ _tag: "End" } as const) },
    )
    : fc.oneof(
      { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Op" as const), index: fc.integer({ min: 1, max: 24 }) }) },
      { weight: 3, arbitrary: fc.record({ _tag: fc.constant("Tool" as const), index: fc.integer({ min: 1, max: 6 }) }) },
      { weight: 1, arbitrary: fc.constant({ _tag: "End" } as const) },
      { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Landing" as const), index: fc.integer({ min: 1, max: 5 }) }) },
    )

const fault = (store: LeaseCase["store"]): fc.Arbitrary<Fault> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant({ _tag: "Held" } as const) },
    { weight: 2, arbitrary: fc.record({ _tag: fc.constant("Break" as const), at: strike(store) }) },
    { weight: 3, arbitrary: fc.record({ _tag: fc.constant("TakeOver" as const), at: strike(store), commits: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ _tag: fc.constant("MoveHead" as const), at: strike(store) }) },
    // Failing renewals go through the recording wrapper: only the observed store has them.
    ...(store === "observed"
      ? [{ weight: 1, arbitrary: fc.record({ _tag: fc.constant("RenewFails" as const), at: strike(store), times: fc.integer({ min: 1, max: 3 }) }) }]
      : []),
  )

/** A lease case: bounded (at most 3 steps of 3 calls), all in data, so fast-check shrinks and replays it. */
export const leaseCase: fc.Arbitrary<LeaseCase> = fc.constantFrom<LeaseCase["store"]>("observed", "observed", "atOnce").chain((store) =>
  fc.record({
    store: fc.constant(store),
    ending: fc.boolean(),
    endWait: fc.constantFrom(0, 0, 5, 20, 50),
    every: fc.constantFrom<LeaseCase["every"]>("tool", "tool", "step"),
    lease: fc.constantFrom(12, 30, 90),
    steps: fc.array(fc.array(fc.constantFrom(0, 0, 5, 20, 50), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
    toolConcurrency: fc.constantFrom<LeaseCase["toolConcurrency"]>("sequential", "concurrent"),
    fault: fault(store),
    // About one case in three ends suspended (when its step comes), the End strike included.
    approval: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 2, nil: undefined }),
    // Two observed cases in three have writes that take time (the lease renews every 4 to 30 ms).
    wait: store === "atOnce" ? fc.constant(undefined) : fc.option(
      fc.record({ commitBefore: fc.constantFrom(0, 1, 5, 20), commitAfter: fc.constantFrom(0, 1, 5, 20), journal: fc.constantFrom(0, 0, 3, 10) }),
      { freq: 3, nil: undefined },
    ),
  })
)

// -- running a case ------------------------------------------------------------------

/** What happened, in one order. `who`: the run under test (`run`), the other owner, or the recovering one. */
export type LeaseEvent =
  | { readonly _tag: "Op"; readonly who: "run" | "other"; readonly op: string; readonly outcome: string; readonly seq?: number | undefined; readonly body?: string | undefined }
  | { readonly _tag: "ToolStart"; readonly who: "run" | "recovery"; readonly callId: string; readonly key: string }
  /** `inFlight`: a checkpoint of the run was sent and not yet answered: the loop went on from a step's. */
  | { readonly _tag: "ModelCall"; readonly who: "run" | "recovery"; readonly inFlight?: boolean | undefined }
  /** `inFlight`: a checkpoint of the run (a step's, or one the run awaits) was sent and not yet answered when it struck. */
  | { readonly _tag: "Fault"; readonly what: string; readonly inFlight?: boolean | undefined }

export interface LeaseRecording {
  readonly c: LeaseCase
  readonly events: ReadonlyArray<LeaseEvent>
  /** How the run ended: its state, or what went wrong. */
  readonly exit: { readonly _tag: "Done"; readonly state: AgentState } | { readonly _tag: "Defect"; readonly detail: string } | { readonly _tag: "Timeout" }
  /** Tool call ids whose result the journal held when the recovery began. */
  readonly journaled: ReadonlyArray<string>
  /** The stored run after the run under test (before the recovery), or why it did not load. */
  readonly storedAfterRun: RunStore.Saved | undefined | string
  /** The rows after the run: seq and text, to check acknowledged commits against. */
  readonly rowsAfterRun: ReadonlyArray<{ readonly seq: number; readonly body: string }>
  /** The recovering owner's run, when a run was stored. */
  readonly recovery?: { readonly exit: { readonly _tag: "Done"; readonly state: AgentState } | { readonly _tag: "Failed"; readonly detail: string }; readonly stored: AgentState | undefined } | undefined
  /** Metadata the other owner's checkpoints wrote (kept by every later state). */
  readonly otherMetadata: Readonly<Record<string, true>>
}

const RUN_ID = "lease-fuzz"
/** A real-time bound on one run (virtual time makes a run take milliseconds). */
const KILL_MS = 5_000

const outcomeOf = <A>(exit: Exit.Exit<A, unknown>): string => {
  if (Exit.isSuccess(exit)) return exit.value === false ? "false" : "ok"
  const failure = Cause.squash(exit.cause)
  return typeof failure === "object" && failure !== null && "_tag" in failure ? String((failure as { _tag: unknown })._tag) : "defect"
}

// The model: tool calls for each step of the case, then a text; ids say who asked.
const modelOf = (c: LeaseCase, who: "run" | "recovery", events: Array<LeaseEvent>, inFlight: () => boolean) => {
  let n = 0
  return ScriptedDriver.make([
    ScriptedDriver.respond((request) => {
      events.push({ _tag: "ModelCall", who, inFlight: inFlight() })
      const step = request.messages.toArray().filter((m) => m.role === "assistant").length
      const calls = c.steps[step]
      if (calls === undefined) return ScriptedDriver.text("done")
      return ScriptedDriver.toolCalls(calls.map((ms, j) => ({ id: `${who}-${++n}`, name: "charge", arguments: { step, j, ms } })))
    }),
  ], { repeatLast: true })
}

const toolOf = (who: "run" | "recovery", events: Array<LeaseEvent>, inside: (() => void) | undefined) =>
  Tool.make({
    name: "charge",
    parameters: t.type({ step: t.number, j: t.number, ms: t.number }),
    execute: ({ ms }, context) => {
      events.push({ _tag: "ToolStart", who, callId: context.toolCall.id, key: context.idempotencyKey })
      inside?.()
      return ms === 0 ? { charged: true } : Effect.as(Effect.sleep(ms), { charged: true })
    },
  })

/** Runs a case: the run under test, then (when a run is stored) its recovery by a new owner. */
export const runLeaseCase = async (c: LeaseCase): Promise<LeaseRecording> => {
  const events: Array<LeaseEvent> = []
  const base = MemoryStore.make()
  const clock = new VirtualClock()
  const otherMetadata: Record<string, true> = {}
  let renewFailures = 0
  let struck = false
  let ops = 0
  let tools = 0
  let landings = 0
  // The run's checkpoints sent and not yet answered (a step's is sent without a wait).
  let inFlight = 0

  // The other owner acts on the store itself, at once (MemoryStore answers synchronously).
  const otherCommit = (tag: string) => {
    const saved = Effect.runSync(Effect.orDie(RunStore.loadEffect(base, RUN_ID)))
    if (saved === undefined) return
    const key = `${tag}${Object.keys(otherMetadata).length + 1}`
    const next = Effect.runSyncExit(RunStore.saveEffect(base, { ...saved.state, metadata: { ...saved.state.metadata, [key]: true } }, saved, clock.currentTimeMillisUnsafe()))
    if (Exit.isSuccess(next)) {
      otherMetadata[key] = true
      const row = Effect.runSync(Effect.orDie(base.rows(RUN_ID))).find((r) => r.seq === next.value.seq)
      events.push({ _tag: "Op", who: "other", op: "commit", outcome: "ok", seq: next.value.seq, body: row === undefined ? undefined : JSON.stringify(row) })
    }
  }
  const act = (f: Fault) => {
    const now = clock.currentTimeMillisUnsafe()
    events.push({ _tag: "Fault", what: f._tag, inFlight: inFlight > 0 })
    switch (f._tag) {
      case "Held":
        Effect.runSync(Effect.orDie(base.takeLease({ runId: RUN_ID, owner: "other", expiresAt: now + 3_600_000 }, now)))
        return
      case "Break":
        Effect.runSync(Effect.orDie(base.releaseLease(RUN_ID)))
        return
      case "TakeOver":
        Effect.runSync(Effect.orDie(base.releaseLease(RUN_ID)))
        Effect.runSync(Effect.orDie(base.takeLease({ runId: RUN_ID, owner: "other", expiresAt: now + 3_600_000 }, now)))
        if (f.commits) otherCommit("takenOver")
        return
      case "MoveHead":
        otherCommit("moved")
        return
      case "RenewFails":
        renewFailures = f.times
        return
    }
  }
  const strikeAt = (kind: Strike["_tag"], index?: number) => {
    const f = c.fault
    if (struck || f._tag === "Held" || f.at._tag !== kind || ("index" in f.at ? f.at.index : undefined) !== index) return
    struck = true
    act(f)
  }

  // The observed store: each operation counted and recorded; the fault strikes before one.
  const observe = <A, E>(op: string, effect: () => Effect.Effect<A, E>, seq?: number, body?: string): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      strikeAt("Op", ++ops)
      if (op === "renewLease" && renewFailures > 0) {
        renewFailures--
        events.push({ _tag: "Op", who: "run", op, outcome: "StoreFailed" })
        return Effect.fail(StoreError.storeFailed("renewLease", new Error("the store is unreachable")) as E)
      }
      return Effect.onExit(effect(), (exit) => Effect.sync(() => void events.push({ _tag: "Op", who: "run", op, outcome: outcomeOf(exit), seq, body })))
    })
  const wait = c.wait ?? { commitBefore: 0, commitAfter: 0, journal: 0 }
  const sleep = (ms: number) => (ms === 0 ? Effect.void : Effect.sleep(ms))
  // A checkpoint that takes time: recorded where it was sent (the run's order: what it
  // sent before or after it heard a refusal), with the outcome it met when it landed.
  const checkpointOp = <E>(op: string, write: () => Effect.Effect<void, E>, seq: number, body: string): Effect.Effect<void, E> =>
    Effect.suspend(() => {
      strikeAt("Op", ++ops)
      const event = { _tag: "Op" as const, who: "run" as const, op, outcome: "unanswered", seq, body }
      events.push(event)
      inFlight++
      const landed = Effect.onExit(
        Effect.andThen(sleep(wait.commitBefore), Effect.suspend(() => (strikeAt("Landing", ++landings), write()))),
        (exit) => Effect.sync(() => void (event.outcome = outcomeOf(exit))),
      )
      return Effect.ensuring(Effect.tap(landed, () => sleep(wait.commitAfter)), Effect.sync(() => void inFlight--))
    })
  const store: RunStore.RunStore = c.store === "atOnce" ? base : {
    ...base,
    commit: (commit) => checkpointOp("commit", () => base.commit(commit), commit.seq, commit.body),
    create: (commit, replace) => checkpointOp("create", () => base.create(commit, replace), commit.seq, commit.body),
    rows: (id) => observe("rows", () => base.rows(id)),
    head: (id) => observe("head", () => base.head(id)),
    journalPut: (id, key, body) => observe("journalPut", () => Effect.andThen(sleep(wait.journal), base.journalPut(id, key, body))),
    journalGet: (id, key) => observe("journalGet", () => Effect.andThen(sleep(wait.journal), base.journalGet(id, key))),
    takeLease: (lease, now) => observe("takeLease", () => base.takeLease(lease, now)),
    renewLease: (lease) => observe("renewLease", () => base.renewLease(lease)),
    releaseLease: (id, owner) => observe("releaseLease", () => base.releaseLease(id, owner)),
  }
  // One statement, as on the SQL stores: one operation the other owner cannot strike inside,
  // recorded as the commit it is; the lease released whatever the commit's answer.
  if (c.ending) {
    const endWith = (commit: RunStore.Commit, owner: string) => Effect.ensuring(base.commit(commit), Effect.ignore(base.releaseLease(commit.runId, owner)))
    StoreTesting.withEnding(store, {
      commitAndRelease: (commit, owner) => store === base ? endWith(commit, owner) : checkpointOp("commit", () => endWith(commit, owner), commit.seq, commit.body),
    })
  }

  // The run's end, above the store's (priority -1,000,000): the End strike, then `endWait`.
  const atEnd = UseHook(
    Hook.effect((ctx) =>
      Effect.suspend(() => {
        strikeAt("End")
        return c.endWait === 0 ? Effect.succeed(ctx) : Effect.as(Effect.sleep(c.endWait), ctx)
      })
    ),
    { triggers: HookTriggers.of("AfterExecution"), priority: 0, name: "fuzz:run_end" },
  )
  // The run's approval: the first call of step `c.approval` suspends the run (the
  // recovering owner's agent has none: it runs what it was given the decisions for).
  const approval = UseHook(
    (ctx) => {
      const args = ctx.toolCall?.arguments as { readonly step?: unknown; readonly j?: unknown } | undefined
      return args !== undefined && ctx.toolExecution === undefined && args.step === c.approval && args.j === 0 ? HookContext.suspend(ctx, "approve", {}) : ctx
    },
    { triggers: HookTriggers.beforeToolUse, name: "fuzz:approval" },
  )
  const agentOf = (who: "run" | "recovery", on: RunStore.RunStore, inside: (() => void) | undefined) =>
    AgentBuilder.make(
      ...(who === "run" ? [atEnd] : []),
      ...(who === "run" && c.approval !== undefined ? [approval] : []),
      UseDriver(modelOf(c, who, events, () => who === "run" && inFlight > 0)),
      UseTools([toolOf(who, events, inside)]),
      UseLoopOptions({ toolConcurrency: c.toolConcurrency }),
      UseGuards({ maxSteps: 10 }),
      UseCheckpoints(on, { every: c.every, lease: c.lease }),
    )

  if (c.fault._tag === "Held") act(c.fault)
  const agent = agentOf("run", store, () => strikeAt("Tool", ++tools))
  const exit = await bounded(agent.runEffect(AgentState.make({ id: RUN_ID, messages: [Message.user("charge")] })), clock)

  const rowsAfterRun = Effect.runSync(Effect.orDie(base.rows(RUN_ID))).map((r) => ({ seq: r.seq, body: JSON.stringify(r) }))
  const loaded = Effect.runSyncExit(RunStore.loadEffect(base, RUN_ID))
  const storedAfterRun = Exit.isSuccess(loaded) ? loaded.value : outcomeOf(loaded)
  const recording = { c, events, exit, storedAfterRun, rowsAfterRun, otherMetadata, journaled: [] as ReadonlyArray<string> }
  if (exit._tag !== "Done" || typeof storedAfterRun === "string" || storedAfterRun === undefined) return recording

  // The recovery: the other owner lets go, a new owner resumes the run from the store.
  Effect.runSync(base.releaseLease(RUN_ID, "other"))
  const startedAt = storedAfterRun.state.execution.startedAt ?? 0
  const journaled = events.flatMap((e) =>
    e._tag === "ToolStart" && Effect.runSync(Effect.orDie(base.journalGet(RUN_ID, `tool:${startedAt}:${e.callId}`))) !== undefined ? [e.callId] : []
  )
  const later = new VirtualClock(undefined, undefined, clock.currentTimeMillisUnsafe() + 3_600_000 * 2)
  const decisions = (storedAfterRun.state.execution.pendingCalls ?? []).map((p) => Decision.approve(p.toolCall.id))
  const resumed = await bounded(Effect.result(agentOf("recovery", base, undefined).resumeEffect(RUN_ID, decisions)), later)
  const stored = Effect.runSyncExit(RunStore.loadEffect(base, RUN_ID))
  return {
    ...recording,
    journaled: [...new Set(journaled)],
    recovery: {
      exit: resumed._tag !== "Done"
        ? { _tag: "Failed", detail: resumed._tag === "Defect" ? resumed.detail : "timed out" }
        : resumed.state._tag === "Success"
        ? { _tag: "Done", state: resumed.state.success }
        : { _tag: "Failed", detail: String((resumed.state.failure as { _tag?: unknown })._tag ?? resumed.state.failure) },
      stored: Exit.isSuccess(stored) ? stored.value?.state : undefined,
    },
  }
}

// Runs `effect` on the virtual clock, bounded in real time.
const bounded = async <A>(effect: Effect.Effect<A>, clock: VirtualClock): Promise<
  { readonly _tag: "Done"; readonly state: A } | { readonly _tag: "Defect"; readonly detail: string } | { readonly _tag: "Timeout" }
> => {
  const kill = new AbortController()
  const timer = setTimeout(() => kill.abort(), KILL_MS)
  const exit = await Effect.runPromiseExit(Effect.provideService(effect, Clock.Clock, clock), { signal: kill.signal })
  clearTimeout(timer)
  if (kill.signal.aborted) return { _tag: "Timeout" }
  return Exit.isSuccess(exit) ? { _tag: "Done", state: exit.value } : { _tag: "Defect", detail: Cause.pretty(exit.cause) }
}

// -- the oracle ------------------------------------------------------------------------

const sameState = (a: AgentState, b: AgentState): boolean => Codecs.stringifyState(a) === Codecs.stringifyState(b)

/** What a recording breaks, as sentences; empty when it keeps every property. */
export const leaseViolations = (r: LeaseRecording): ReadonlyArray<string> => {
  const out: Array<string> = []
  if (r.exit._tag !== "Done") return [`the run did not end normally: ${r.exit._tag === "Defect" ? r.exit.detail : "it timed out"}`]
  const final = r.exit.state
  const events = r.events
  const runOps = events.flatMap((e, i) => (e._tag === "Op" && e.who === "run" ? [{ ...e, i }] : []))
  const toolStarts = events.flatMap((e, i) => (e._tag === "ToolStart" && e.who === "run" ? [{ ...e, i }] : []))
  const leaseStop = final.execution.stopSignals.some((s) => s.reason === "RunLeased")
  // A conflict with another owner's checkpoint fails a plain run with the store hook's
  // HookFailed naming it (docs/durability.md); `agent.resume` rejects with the typed
  // CheckpointConflict. Met by the last checkpoint (AfterExecution, after the loop
  // concluded the run), it stops the run with a CheckpointConflict signal instead.
  const conflictFail = final.execution.status === "failed" && final.execution.errors.some((e) =>
    e._tag === "HookFailed" && e.hook.startsWith("store:") && e.message.includes("checkpoint conflict")
  ) || final.execution.stopSignals.some((s) => s.reason === "CheckpointConflict")

  // Refused at the start: nothing of the run ran or was written.
  if (r.c.fault._tag === "Held") {
    if (final.execution.status !== "stopped" || final.execution.stopReason !== "RunLeased") {
      out.push(`a run refused its lease ended ${final.execution.status} (${final.execution.stopReason}), not stopped with RunLeased`)
    }
    if (toolStarts.length > 0 || events.some((e) => e._tag === "ModelCall")) out.push("a run refused its lease called the model or ran a tool")
    if (r.rowsAfterRun.length > 0) out.push("a run refused its lease wrote a checkpoint")
  }

  // What the run learned from the store (observed store only): a renewal refused, a checkpoint refused.
  const lost = runOps.find((o) => (o.op === "renewLease" && o.outcome === "false") || (o.op === "takeLease" && o.outcome === "RunLeased"))
  const conflict = runOps.find((o) => (o.op === "commit" || o.op === "create") && o.outcome === "CheckpointConflict")
  const learned = [lost, conflict].filter((o) => o !== undefined).sort((a, b) => a.i - b.i)[0]
  // A run that learned it only after it sent its last checkpoint, which the store took,
  // needs no stop: its end is stored (with writes that take time, a heartbeat's renewal
  // may be refused while that checkpoint is answered: the lease broken meanwhile, or
  // released by an ending's statement itself). Its stored run is checked below as any
  // run's that learned nothing.
  const lastWrite = runOps.filter((o) => o.op === "commit" || o.op === "create").at(-1)
  const endStoredFirst = learned !== undefined && lastWrite !== undefined && lastWrite.outcome === "ok" && lastWrite.i < learned.i
  if (learned !== undefined) {
    const late = toolStarts.filter((t) => t.i > learned.i)
    if (late.length > 0) out.push(`tool call(s) ${late.map((t) => t.callId).join(", ")} started after the store said the run lost it (${learned.op}: ${learned.outcome})`)
    const written = runOps.filter((o) => o.i > learned.i && (o.op === "commit" || o.op === "create") && o.outcome === "ok")
    if (written.length > 0) out.push(`the run committed checkpoint(s) ${written.map((o) => o.seq).join(", ")} after the store said it lost the run`)
    if (endStoredFirst) {
      // Nothing to say of its status.
    } else if (!leaseStop && !conflictFail) {
      out.push(
        `the store said the run lost it (${learned.op}: ${learned.outcome}) but the run ended ${final.execution.status} (${final.execution.stopReason ?? "no stop reason"}) with no stop naming the lease or the conflict`,
      )
    } else if (final.execution.status === "completed" || final.execution.status === "suspended") {
      // A stop signal among others is not enough: the caller reads the status.
      out.push(`the store said the run lost it (${learned.op}: ${learned.outcome}) but the run ended ${final.execution.status}, a state it did not store`)
    }
  }
  // A stop naming the lease is the run's own doing only when the store said so.
  if (leaseStop && r.c.fault._tag !== "Held" && r.c.store === "observed" && lost === undefined) {
    out.push("the run stopped with RunLeased though the store refused it no lease")
  }

  // Nothing acknowledged is lost: each acknowledged checkpoint is stored as written.
  if (typeof r.storedAfterRun === "string") out.push(`the stored run does not load after the run: ${r.storedAfterRun}`)
  const rows = new Map(r.rowsAfterRun.map((row) => [row.seq, row.body]))
  for (const e of events) {
    if (e._tag !== "Op" || (e.op !== "commit" && e.op !== "create") || e.outcome !== "ok" || e.seq === undefined) continue
    if (!rows.has(e.seq)) out.push(`checkpoint ${e.seq} (${e.who}) was acknowledged and is gone`)
    else if (e.who === "other" && rows.get(e.seq) !== e.body) out.push(`checkpoint ${e.seq} (${e.who}) was acknowledged and is stored otherwise`)
  }
  if (r.rowsAfterRun.some((row, i) => row.seq !== i + 1)) out.push(`the stored rows are not 1..n: ${r.rowsAfterRun.map((row) => row.seq).join(",")}`)
  // A run that ended completed or suspended without a lease or conflict stop is the stored run.
  if ((final.execution.status === "completed" || final.execution.status === "suspended") && (learned === undefined || endStoredFirst) && typeof r.storedAfterRun === "object" && r.storedAfterRun !== undefined) {
    if (!sameState(r.storedAfterRun.state, final)) {
      if (Object.keys(r.otherMetadata).length === 0) out.push(`the run ended ${final.execution.status}, but the store holds another state`)
    }
  }

  // The recovery: the new owner finishes the run, keeps the other owner's checkpoints, and runs no journaled call again.
  const rec = r.recovery
  if (rec !== undefined) {
    if (rec.exit._tag !== "Done") out.push(`the new owner's resume failed: ${rec.exit.detail}`)
    else {
      const done = rec.exit.state
      if (done.execution.status !== "completed") out.push(`the new owner's resume ended ${done.execution.status} (${done.execution.stopReason})`)
      if (rec.stored === undefined || !sameState(rec.stored, done)) out.push("the new owner's final state is not the stored one")
      for (const key of Object.keys(r.otherMetadata)) {
        if (done.metadata[key] !== true) out.push(`the other owner's checkpoint (${key}) is lost from the finished run`)
      }
    }
    const counts = new Map<string, number>()
    for (const e of events) if (e._tag === "ToolStart") counts.set(e.callId, (counts.get(e.callId) ?? 0) + 1)
    for (const id of r.journaled) if ((counts.get(id) ?? 0) > 1) out.push(`journaled tool call ${id} ran ${counts.get(id)} times`)
  }
  return out
}

/** The case and what happened, for a failure report. */
export const describeLeaseCase = (r: LeaseRecording): string =>
  [
    `case: ${JSON.stringify(r.c)}`,
    `run ended: ${r.exit._tag === "Done" ? `${r.exit.state.execution.status} (${r.exit.state.execution.stopReason ?? "-"}) ${JSON.stringify(r.exit.state.execution.stopSignals.map((s) => s.message))} errors ${JSON.stringify(r.exit.state.execution.errors.map((e) => e._tag))}` : r.exit._tag}`,
    `recovery: ${r.recovery === undefined ? "none (nothing stored)" : r.recovery.exit._tag === "Done" ? r.recovery.exit.state.execution.status : r.recovery.exit.detail}`,
    "events:",
    ...r.events.map((e) =>
      e._tag === "Op"
        ? `  ${e.who} ${e.op}${e.seq === undefined ? "" : ` #${e.seq}`} -> ${e.outcome}`
        : e._tag === "ToolStart"
        ? `  ${e.who} tool ${e.callId}`
        : e._tag === "ModelCall"
        ? `  ${e.who} model call${e.inFlight === true ? " (a checkpoint in flight)" : ""}`
        : `  FAULT ${e.what}${e.inFlight === true ? " (a checkpoint in flight)" : ""}`
    ),
  ].join("\n")
