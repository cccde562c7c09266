// What a runner keeps of a suspended run once its entity is evicted: nothing of the run
// itself. The run's states and model requests are watched with a FinalizationRegistry;
// once the entities are gone (effect/cluster's own gauge reads 0) and garbage is
// collected, every one of them must have been collected: a per-run table that forgot a
// run (the checkpoint hooks' records, the loop's run tables, a cancel handle, a fiber
// left waiting) would keep them. The store is a MemoryStore, which keeps JSON text only,
// and the model keeps no log of its calls.
import { UseHook } from "@hookline/agent"
import { HookTriggers } from "@hookline/core"
import { MemoryStore } from "@hookline/store"
import { Effect, Layer, Metric } from "effect"
import { ClusterMetrics, TestRunner } from "effect/cluster"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { Client, ClusterAgent, RunEntity } from "../src/index.js"
import { agents, unloggedChargeModel } from "./support/agents.js"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void

// FinalizationRegistry callbacks run after a collection, on a later task.
const collect = async () => {
  for (let i = 0; i < 3; i++) {
    gc()
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("an evicted suspended run (TestRunner)", () => {
  it("leaves none of its states or model requests on the runner once its entity is evicted", async () => {
    const runs = 50
    const watched = new Set<string>()
    let seen = 0
    const registry = new FinalizationRegistry<string>((label) => watched.delete(label))
    const watch = (kind: string, runId: string, value: object) => {
      const label = `${runId} ${kind} ${seen++}`
      watched.add(label)
      registry.register(value, label)
    }
    // Every state a run ends its execution with, and every request its model is asked.
    const tracked = agents(() => undefined, 0, { model: unloggedChargeModel }).map((a) =>
      ClusterAgent.make(
        a.name,
        ...a.capabilities,
        UseHook((ctx) => {
          if (ctx.request !== undefined) watch("request", ctx.state.id, ctx.request)
          else watch("state", ctx.state.id, ctx.state)
          return ctx
        }, { triggers: [...HookTriggers.afterExecution, ...HookTriggers.beforeInference], name: "test:watch" }),
      )
    )
    const store = MemoryStore.make()
    const HooklineLive = Layer.effect(
      RunEntity.Hookline,
      Effect.map(ClusterAgent.register(tracked, store, { lease: 10_000 }), (registered) => ({ store, agents: registered })),
    )
    const layer = Client.layer({ pollInterval: "10 millis" }).pipe(
      Layer.provideMerge(RunEntity.layer({ maxIdleTime: "100 millis" }).pipe(Layer.provide(HooklineLive))),
      Layer.provideMerge(TestRunner.layer),
    )
    const resident = Metric.value(Metric.withAttributes(ClusterMetrics.entities, { type: "HooklineRun" }))

    const [statuses, before] = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const client = yield* Client.HooklineClient
      const ids = Array.from({ length: runs }, (_, i) => `evicted-${i}`)
      yield* Effect.forEach(ids, (runId) => client.start("approver", "charge me", { runId }), { concurrency: 10 })
      const summaries = yield* Effect.forEach(ids, (runId) => client.result(runId), { concurrency: 10 })
      const before = (yield* resident).value
      // effect/cluster's reaper looks every 5 s at the least: wait until it evicted them all.
      while ((yield* resident).value > 0n) yield* Effect.sleep("200 millis")
      yield* Effect.promise(collect)
      return [summaries.map((s) => s.status), before] as const
    })).pipe(Effect.provide(layer)))

    expect(statuses).toEqual(Array.from({ length: runs }, () => "suspended"))
    // Resident first (the client's readiness probe is one more entity).
    expect(before >= BigInt(runs)).toBe(true)
    // One request and one final state per run were watched, and none is kept.
    expect(seen).toBe(2 * runs)
    expect([...watched]).toEqual([])
  }, 60_000)
})
