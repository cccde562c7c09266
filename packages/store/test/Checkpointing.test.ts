import { AgentBuilder, Tool, UseDriver, UseGuards, UseTools } from "@hookline/agent"
import { AgentState, Codecs, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import { Clock, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { MemoryStore, RunStore, StoreError } from "../src/index.js"
import { UseCheckpoints, type Options } from "../src/Checkpointing.js"
import { chargeModel, normalizedMessages } from "./support/charges.js"
import { dyingAfter } from "./support/dyingStore.js"

const model = chargeModel

interface Effects {
  readonly log: Array<{ readonly toolCallId: string; readonly key: string; readonly amount: number }>
}

const chargeTool = (effects: Effects) =>
  Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: ({ amount }, context) => {
      effects.log.push({ toolCallId: context.toolCall.id, key: context.idempotencyKey, amount })
      return { charged: amount }
    },
  })

const agentOf = (store: RunStore.RunStore, effects: Effects, every: "tool" | "step" = "tool") =>
  AgentBuilder.make(UseDriver(model()), UseTools([chargeTool(effects)]), UseGuards({ maxSteps: 10 }), UseCheckpoints(store, { every }))

const normalized = normalizedMessages

// A tool held inside its call of amount 1 (the approved one): the run stays in it until `release`.
const heldCharge = (effects: Effects) => {
  let release: () => void = () => {}
  let entered: () => void = () => {}
  const inside = new Promise<void>((resolve) => (entered = resolve))
  const gate = new Promise<void>((resolve) => (release = resolve))
  const tool = Tool.make({
    name: "charge",
    parameters: t.type({ amount: t.number }),
    execute: async ({ amount }, context) => {
      if (amount === 1) {
        entered()
        await gate
      }
      effects.log.push({ toolCallId: context.toolCall.id, key: context.idempotencyKey, amount })
      return { charged: amount }
    },
  })
  return { tool, inside, release: () => release() }
}

describe("UseCheckpoints", () => {
  it("stores the run as it ends: loading gives the final state", async () => {
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    const final = await agentOf(store, effects).run("charge me")
    expect(final.execution.status).toBe("completed")
    expect((await RunStore.load(store, final.id))?.state).toEqual(final)
    expect(effects.log).toHaveLength(6)
    expect(effects.log.map((e) => e.key)).toEqual(effects.log.map((e) => `${final.id}:${e.toolCallId}`))
  })

  it("gives a finished run back on resume without running it again", async () => {
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    const final = await agentOf(store, effects).run("charge me")
    const again = await agentOf(store, effects).resume(final.id)
    expect(again).toEqual(final)
    expect(effects.log).toHaveLength(6)
  })

  it("rejects the resume of an unknown run with RunNotFound", async () => {
    const error = await agentOf(MemoryStore.make(), { log: [] }).resume("nope").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(StoreError.RunNotFound)
  })

  it("finishes a run cut at any store operation like a run never cut; no journaled call runs twice", async () => {
    const reference = await agentOf(MemoryStore.make(), { log: [] }).run("charge me")
    let cuts = 0
    for (let budget = 0; ; budget++) {
      const store = MemoryStore.make()
      const effects: Effects = { log: [] }
      const cut = await agentOf(dyingAfter(store, budget), effects).run("charge me")
      if (cut.execution.status === "completed") break
      cuts++
      const stored = await RunStore.load(store, cut.id)
      if (stored === undefined) continue // cut before the first checkpoint: nothing to resume
      const journaledBefore = new Set<string>()
      for (const entry of effects.log) {
        const body = await Effect.runPromise(store.journalGet(cut.id, `tool:${stored.state.execution.startedAt}:${entry.toolCallId}`))
        if (body !== undefined) journaledBefore.add(entry.toolCallId)
      }
      const final = await agentOf(store, effects).resume(cut.id)
      expect(final.execution.status).toBe("completed")
      expect(normalized(final)).toEqual(normalized(reference))
      const runs = new Map<string, number>()
      for (const entry of effects.log) runs.set(entry.toolCallId, (runs.get(entry.toolCallId) ?? 0) + 1)
      for (const [id, count] of runs) {
        if (journaledBefore.has(id)) expect(count, `journaled call ${id} ran again`).toBe(1)
        else expect(count).toBeLessThanOrEqual(2)
      }
      // A call that ran twice did so with the same idempotency key.
      const keys = new Map<string, Set<string>>()
      for (const entry of effects.log) keys.set(entry.toolCallId, (keys.get(entry.toolCallId) ?? new Set()).add(entry.key))
      for (const set of keys.values()) expect(set.size).toBe(1)
      expect((await RunStore.load(store, cut.id))?.state).toEqual(final)
    }
    expect(cuts).toBeGreaterThan(10)
  })

  it("with every: \"step\", replays an unfinished step whole", async () => {
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    // The first checkpoint, then the first step's end: cut before the second step's end.
    const cut = await agentOf(dyingAfter(store, 3), effects, "step").run("charge me")
    expect(cut.execution.status).not.toBe("completed")
    const stored = await RunStore.load(store, cut.id)
    const final = await agentOf(store, effects, "step").resume(cut.id)
    expect(final.execution.status).toBe("completed")
    expect(final.execution.steps.length).toBe(4)
    expect(stored?.state.execution.steps.length).toBeLessThan(final.execution.steps.length)
  })

  it("lets one of two agents resuming the same run commit; the other's resume rejects with CheckpointConflict", async () => {
    const store = MemoryStore.make()
    const cut = await agentOf(dyingAfter(store, 2), { log: [] }).run("charge me")
    // Both load the run before either goes on, as two processes would.
    let waiting = 2
    let release: () => void = () => undefined
    const bothLoaded = new Promise<void>((resolve) => (release = resolve))
    const racing: RunStore.RunStore = {
      ...store,
      rows: (id) => Effect.andThen(store.rows(id), (rows) => Effect.as(Effect.promise(() => (--waiting === 0 && release(), bothLoaded)), rows)),
    }
    const [a, b] = await Promise.allSettled([agentOf(racing, { log: [] }).resume(cut.id), agentOf(racing, { log: [] }).resume(cut.id)])
    const winner = [a, b].find((r) => r.status === "fulfilled")
    const loser = [a, b].find((r) => r.status === "rejected")
    expect(winner?.value.execution.status).toBe("completed")
    expect(loser?.reason).toBeInstanceOf(StoreError.CheckpointConflict)
    expect(loser?.reason).toMatchObject({ _tag: "CheckpointConflict", runId: cut.id })
    expect((await RunStore.load(store, cut.id))?.state).toEqual(winner?.value)
  })

  it("fails only the resume whose run met the conflict: the next resume of that run goes on", async () => {
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    const cut = await agentOf(dyingAfter(store, 2), effects).run("charge me")
    // Another writer moves the head just before this agent's first commit.
    let moved = false
    const overtaken: RunStore.RunStore = {
      ...store,
      commit: (c) =>
        Effect.andThen(
          moved ? Effect.void : Effect.orDie(Effect.flatMap(RunStore.loadEffect(store, cut.id), (s) => {
            moved = true
            return RunStore.saveEffect(store, { ...(s?.state as AgentState), metadata: { moved: true } }, s)
          })),
          store.commit(c),
        ),
    }
    const agent = agentOf(overtaken, effects)
    const lost = await agent.resume(cut.id).then(() => undefined, (e: unknown) => e)
    expect(lost).toBeInstanceOf(StoreError.CheckpointConflict)
    expect((await RunStore.load(store, cut.id))?.state.metadata).toEqual({ moved: true })
    const final = await agent.resume(cut.id)
    expect(final.execution.status).toBe("completed")
    expect(final.metadata).toEqual({ moved: true })
  })
})

// Suspends the second call of the first step (amount 1).
const approvalHook = async () => {
  const { UseHook } = await import("@hookline/agent")
  const { HookContext, HookTriggers } = await import("@hookline/core")
  return UseHook(
    (ctx) => ctx.toolCall !== undefined && (ctx.toolCall.arguments as { amount: number }).amount === 1 ? HookContext.suspend(ctx, "check", { amount: 1 }) : ctx,
    { triggers: HookTriggers.beforeToolUse, name: "test:approval" },
  )
}

describe("UseCheckpoints with approvals", () => {
  it("stores a suspended run; a new agent resumes it by id with a decision and nothing journaled runs again", async () => {
    const { Decision } = await import("@hookline/agent")
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    const approval = await approvalHook()
    const make = () =>
      AgentBuilder.make(UseDriver(model()), UseTools([chargeTool(effects)]), UseGuards({ maxSteps: 10 }), approval, UseCheckpoints(store))
    const suspended = await make().run("charge me")
    expect(suspended.execution.status).toBe("suspended")
    const stored = await RunStore.load(store, suspended.id)
    expect(stored?.state).toEqual(suspended)
    expect(effects.log.map((e) => e.amount)).toEqual([0])
    const pending = suspended.execution.pendingCalls?.[0]?.toolCall.id as string
    const final = await make().resume(suspended.id, [Decision.approve(pending)])
    expect(final.execution.status).toBe("completed")
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1, 10, 11, 20, 21])
    expect((await RunStore.load(store, suspended.id))?.state).toEqual(final)
  })

  const approvalSetup = async () => {
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    const approval = await approvalHook()
    const make = (tool: ReturnType<typeof chargeTool>) =>
      AgentBuilder.make(UseDriver(model()), UseTools([tool]), UseGuards({ maxSteps: 10 }), approval, UseCheckpoints(store))
    const suspended = await make(chargeTool(effects)).run("charge me")
    const pending = suspended.execution.pendingCalls?.[0]?.toolCall.id as string
    return { store, effects, make, suspended, pending }
  }

  it("refuses a second approval of a call while the first resume carries it out: the tool runs once", async () => {
    const { Decision } = await import("@hookline/agent")
    const { effects, make, suspended, pending } = await approvalSetup()
    const held = heldCharge(effects)
    // The first resume is inside the approved call (its first checkpoint is written).
    const first = make(held.tool).resume(suspended.id, { decisions: [Decision.approve(pending)] })
    await held.inside
    // A different decision, from another agent on the same store: already decided.
    const other = await make(chargeTool(effects)).resume(suspended.id, { decisions: [Decision.reject(pending, "no")] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(other).toMatchObject({ _tag: "DecisionInvalid", toolCallId: pending, reason: "decided" })
    // The same approval again is a repeat: it would carry out the kept decision, which
    // the first resume holds the lease for.
    const second = await make(chargeTool(effects)).resume(suspended.id, { decisions: [Decision.approve(pending)] }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(second).toMatchObject({ _tag: "RunLeased", runId: suspended.id })
    held.release()
    const final = await first
    expect(final.execution.status).toBe("completed")
    expect(effects.log.filter((e) => e.amount === 1)).toHaveLength(1)
  })

  it("carries out the decisions of a resume that died in the approved call, asking no one again", async () => {
    const { Decision } = await import("@hookline/agent")
    const { store, effects, make, suspended, pending } = await approvalSetup()
    const held = heldCharge(effects)
    // The first resume dies inside the approved call (as a process killed there): its
    // run never goes on. It is aborted at the end only to leave nothing behind.
    const dead = new AbortController()
    const dying = make(held.tool).resume(suspended.id, [Decision.edit(pending, { amount: 1 })], { signal: dead.signal }).catch(() => undefined)
    await held.inside
    // Its lease outlives it (its heartbeat would renew it here): a supervisor that saw
    // the process die takes the run over knowingly.
    expect(await RunStore.breakLease(store, suspended.id)).toBe(true)
    // A new process resumes the run by id, with no decisions: the approval was kept.
    const final = await make(chargeTool(effects)).resume(suspended.id)
    expect(final.execution.status).toBe("completed")
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1, 10, 11, 20, 21])
    dead.abort()
    held.release()
    await dying
  })
})

describe("UseCheckpoints leases", () => {
  // A run suspended on the call of amount 1, its approval, and agents on one store.
  const suspendedRun = async (store: RunStore.RunStore = MemoryStore.make(), options: Options = {}) => {
    const { Decision } = await import("@hookline/agent")
    const effects: Effects = { log: [] }
    const approval = await approvalHook()
    const make = (tool: ReturnType<typeof chargeTool>) =>
      AgentBuilder.make(UseDriver(model()), UseTools([tool]), UseGuards({ maxSteps: 10 }), approval, UseCheckpoints(store, options))
    const suspended = await make(chargeTool(effects)).run("charge me")
    const pending = suspended.execution.pendingCalls?.[0]?.toolCall.id as string
    return { store, effects, make, suspended, approve: [Decision.approve(pending)] }
  }

  it("refuses a resume of the run by the same agent while its first resume is in a tool: RunLeased, and the tool runs once", async () => {
    const { store, effects, make, suspended, approve } = await suspendedRun()
    const slow = heldCharge(effects)
    const agent = make(slow.tool)
    const first = agent.resume(suspended.id, approve)
    await slow.inside
    // The crash-recovery call (no decisions: it would carry out the kept approval).
    const second = await agent.resume(suspended.id).then(() => undefined, (e: unknown) => e)
    expect(second).toBeInstanceOf(StoreError.RunLeased)
    expect(second).toMatchObject({ _tag: "RunLeased", runId: suspended.id })
    expect((second as StoreError.RunLeased).message).toContain(suspended.id)
    slow.release()
    const final = await first
    expect(final.execution.status).toBe("completed")
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1, 10, 11, 20, 21])
    // The first run's record was its own: its checkpoints are the run.
    expect((await RunStore.load(store, suspended.id))?.state).toEqual(final)
    // Released at the end: the run can be resumed again (it is finished).
    expect(await agent.resume(suspended.id)).toEqual(final)
  })

  it("refuses a resume by another agent while the first resume is in a tool; a plain run of the id stops with RunLeased", async () => {
    const { store, effects, make, suspended, approve } = await suspendedRun()
    const slow = heldCharge(effects)
    const first = make(slow.tool).resume(suspended.id, approve)
    await slow.inside
    const other = make(chargeTool(effects))
    const second = await other.resume(suspended.id).then(() => undefined, (e: unknown) => e)
    expect(second).toMatchObject({ _tag: "RunLeased", runId: suspended.id })
    // agent.run never rejects: the run ends stopped with the lease's hard stop signal.
    const stored = (await RunStore.load(store, suspended.id))?.state as AgentState
    const logged = effects.log.length
    const ran = await other.run(stored)
    expect(ran.execution.status).toBe("stopped")
    expect(ran.execution.stopReason).toBe("RunLeased")
    // It did nothing: no model call, no tool, nothing written. (Its own result, a stopped
    // run, closes the step it was given, as any run that does not end suspended does.)
    expect(ran.execution.usage).toEqual(stored.execution.usage)
    expect(effects.log).toHaveLength(logged)
    expect((await RunStore.load(store, suspended.id))?.state).toEqual(stored)
    slow.release()
    const final = await first
    expect(final.execution.status).toBe("completed")
    expect(effects.log.filter((e) => e.amount === 1)).toHaveLength(1)
    expect((await RunStore.load(store, suspended.id))?.state).toEqual(final)
  })

  it("holds the lease from a new run's start: a resume of its id while it runs is refused", async () => {
    const store = MemoryStore.make()
    const effects: Effects = { log: [] }
    const slow = heldCharge(effects)
    const running = agentOf(store, effects)
    const agent = AgentBuilder.make(UseDriver(model()), UseTools([slow.tool]), UseGuards({ maxSteps: 10 }), UseCheckpoints(store))
    const started = agent.run(AgentState.make({ id: "new-run", messages: [Message.user("charge me")] }))
    await slow.inside
    // Its first checkpoint is stored: a worker sees a "running" run and resumes it.
    expect((await RunStore.load(store, "new-run"))?.state.execution.status).toBe("running")
    const refused = await running.resume("new-run").then(() => undefined, (e: unknown) => e)
    expect(refused).toMatchObject({ _tag: "RunLeased", runId: "new-run" })
    slow.release()
    const final = await started
    expect(final.execution.status).toBe("completed")
    expect(effects.log.filter((e) => e.amount === 1)).toHaveLength(1)
    expect((await RunStore.load(store, "new-run"))?.state).toEqual(final)
  })

  it("releases the lease however the run ends: suspended, aborted, failed", async () => {
    const { UseHook } = await import("@hookline/agent")
    const { HookTriggers } = await import("@hookline/core")
    const free = (store: RunStore.RunStore, runId: string) =>
      Effect.runPromise(Effect.result(store.takeLease({ runId, owner: "next", expiresAt: Date.now() + 60_000 }, Date.now())))
    // Suspended: the run that suspended let its lease go.
    const { store, effects, make, suspended, approve } = await suspendedRun()
    expect((await free(store, suspended.id))._tag).toBe("Success")
    expect(await Effect.runPromise(store.releaseLease(suspended.id, "next"))).toBe(true)
    // Aborted inside the approved call.
    const slow = heldCharge(effects)
    const abort = new AbortController()
    const aborted = make(slow.tool).resume(suspended.id, approve, { signal: abort.signal })
    await slow.inside
    expect((await free(store, suspended.id))._tag).toBe("Failure")
    abort.abort()
    slow.release()
    expect((await aborted).execution.status).toBe("stopped")
    expect((await free(store, suspended.id))._tag).toBe("Success")
    // Failed: a hook that throws ends the run failed.
    const failing = AgentBuilder.make(
      UseDriver(model()),
      UseTools([chargeTool(effects)]),
      UseHook(() => {
        throw new Error("broken hook")
      }, { triggers: HookTriggers.beforeInference, name: "test:broken" }),
      UseCheckpoints(store),
    )
    const failed = await failing.run(AgentState.make({ id: "fails", messages: [Message.user("charge me")] }))
    expect(failed.execution.status).toBe("failed")
    expect((await free(store, "fails"))._tag).toBe("Success")
  })

  it("keeps the lease through a tool that runs longer than its time to live (heartbeat on Effect's clock)", async () => {
    const { store, effects, make, suspended, approve } = await suspendedRun(MemoryStore.make(), { lease: "30 seconds" })
    const slow = heldCharge(effects)
    const program = Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(make(slow.tool).resumeEffect(suspended.id, approve))
      yield* Effect.promise(() => slow.inside)
      // Three times the lease's time to live, inside the tool.
      yield* TestClock.adjust("90 seconds")
      const now = yield* Clock.currentTimeMillis
      const refused = yield* Effect.flip(store.takeLease({ runId: suspended.id, owner: "other", expiresAt: now + 1 }, now))
      slow.release()
      const final = yield* Fiber.join(fiber)
      // Released at AfterExecution.
      yield* store.takeLease({ runId: suspended.id, owner: "after", expiresAt: now + 1 }, now)
      return { refused, final, now }
    })
    const { refused, final, now } = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(now).toBe(90_000)
    expect(refused).toBeInstanceOf(StoreError.RunLeased)
    // Renewed within the last third of its time to live.
    expect((refused as StoreError.RunLeased).expiresAt).toBeGreaterThan(now + 10_000)
    expect(final.execution.status).toBe("completed")
    expect(effects.log.filter((e) => e.amount === 1)).toHaveLength(1)
  })

  it("lets a resume go on once a dead holder's lease expired, not before", async () => {
    const { store, effects, make, suspended, approve } = await suspendedRun(MemoryStore.make(), { lease: "30 seconds" })
    const program = Effect.gen(function*() {
      // A process that took the lease at 0 and died.
      yield* store.takeLease({ runId: suspended.id, owner: "dead", expiresAt: 30_000 }, 0)
      yield* TestClock.setTime(29_999)
      const early = yield* Effect.flip(make(chargeTool(effects)).resumeEffect(suspended.id, approve))
      yield* TestClock.setTime(30_000)
      const final = yield* make(chargeTool(effects)).resumeEffect(suspended.id, approve)
      return { early, final }
    })
    const { early, final } = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(early).toMatchObject({ _tag: "RunLeased", runId: suspended.id, expiresAt: 30_000 })
    expect(final.execution.status).toBe("completed")
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1, 10, 11, 20, 21])
  })

  it("stops a run that lost its lease: no more tools, no more checkpoints, its resume rejects with RunLeased", async () => {
    const { store, effects, make, suspended, approve } = await suspendedRun(MemoryStore.make(), { lease: "30 seconds" })
    const slow = heldCharge(effects)
    const program = Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.flip(make(slow.tool).resumeEffect(suspended.id, approve)))
      yield* Effect.promise(() => slow.inside)
      const before = yield* RunStore.loadEffect(store, suspended.id)
      // Taken over (a supervisor that thought it dead), then the next renewal.
      yield* Effect.promise(() => RunStore.breakLease(store, suspended.id))
      yield* TestClock.adjust("10 seconds")
      slow.release()
      const error = yield* Fiber.join(fiber)
      const after = yield* RunStore.loadEffect(store, suspended.id)
      return { error, before, after }
    })
    const { error, before, after } = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(error).toMatchObject({ _tag: "RunLeased", runId: suspended.id })
    expect(String((error as StoreError.RunLeased).message)).toContain("lost its lease")
    // The held call finished (it was running); the step's next call and later steps did not run.
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1])
    expect(after?.seq).toBe(before?.seq)
  })

  it("runs no new tool after its process froze past the lease's time to live, before its heartbeat's renewal answers (a zombie)", async () => {
    const base = MemoryStore.make()
    // The heartbeat's first renewal after the freeze is slow to answer (a store round trip
    // under way when the process wakes); any other renewal answers at once.
    let renewals = 0
    const store: RunStore.RunStore = {
      ...base,
      renewLease: (lease) => (++renewals === 1 ? Effect.never : base.renewLease(lease)),
    }
    const { effects, make, suspended, approve } = await suspendedRun(store, { lease: "30 seconds" })
    const slow = heldCharge(effects)
    const program = Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(Effect.flip(make(slow.tool).resumeEffect(suspended.id, approve)))
      yield* Effect.promise(() => slow.inside)
      // Frozen for a minute: its lease expired, a new owner broke it and took the run.
      yield* Effect.promise(() => RunStore.breakLease(store, suspended.id))
      yield* store.takeLease({ runId: suspended.id, owner: "new owner", expiresAt: 1_000_000 }, 0)
      yield* TestClock.adjust("60 seconds")
      slow.release()
      return yield* Fiber.join(fiber)
    })
    const error = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(error).toMatchObject({ _tag: "RunLeased", runId: suspended.id })
    // The call in flight finished; no call after it ran.
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1])
  })

  it("journals none of the calls it refused after losing its lease: the new owner finishes the run as an uncrashed run ends", async () => {
    const { store, effects, make, suspended, approve } = await suspendedRun(MemoryStore.make(), { lease: "30 seconds" })
    // What the approved run ends with when nothing freezes.
    const reference = await suspendedRun(MemoryStore.make(), { lease: "30 seconds" })
    const uncrashed = await reference.make(chargeTool(reference.effects)).resume(reference.suspended.id, reference.approve)
    const slow = heldCharge(effects)
    const program = Effect.gen(function*() {
      const zombie = yield* Effect.forkChild(Effect.flip(make(slow.tool).resumeEffect(suspended.id, approve)))
      yield* Effect.promise(() => slow.inside)
      // Taken from it while it is in a tool; it learns so at its next renewal and refuses
      // the next step's calls (blocked, "does not hold its lease").
      yield* Effect.promise(() => RunStore.breakLease(store, suspended.id))
      yield* TestClock.adjust("10 seconds")
      slow.release()
      yield* Fiber.join(zombie)
      // The new owner goes on from the store and the journal.
      return yield* make(chargeTool(effects)).resumeEffect(suspended.id)
    })
    const final = await Effect.runPromise(Effect.provide(program, TestClock.layer()))
    expect(normalized(final)).not.toContain("does not hold its lease")
    expect(normalized(final)).toEqual(normalized(uncrashed))
    expect(final.execution.status).toBe("completed")
    // The zombie's call in flight ran once; the new owner ran the rest once each.
    expect(effects.log.map((e) => e.amount)).toEqual([0, 1, 10, 11, 20, 21])
  })

  it("refuses a lease shorter than 10 ms or not a duration", () => {
    expect(() => UseCheckpoints(MemoryStore.make(), { lease: "1 millis" })).toThrow(/lease.*at least 10 ms/)
    expect(() => UseCheckpoints(MemoryStore.make(), { lease: "soon" as never })).toThrow(/lease/)
    expect(() => UseCheckpoints(MemoryStore.make(), { lease: Number.POSITIVE_INFINITY })).toThrow(/lease/)
  })
})
