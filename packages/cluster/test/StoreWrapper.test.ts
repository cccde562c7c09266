// A store wrapped by spreading (`{ ...store, journalGet }`, as users and fault-injecting
// tests wrap one) is read through the wrapper: the entity's first read of a new run
// (its head and its cancel marker) does not go around it to the inner store's one
// statement (a SQL store's combined read is kept by the store object, not copied).
import { PgliteStore, type RunStore } from "@hookline/store"
import { Effect, Layer } from "effect"
import { TestRunner } from "effect/cluster"
import { describe, expect, it } from "vitest"
import { Cancellation, Client, ClusterAgent, RunEntity } from "../src/index.js"
import { agents } from "./support/agents.js"

describe("the entity's reads of a store wrapped by spreading", () => {
  it("reads a new run's head and cancel marker through the wrapper's head and journalGet, not the inner SQL store's", async () => {
    const inner = await PgliteStore.open({ dataDir: "memory://" })
    const reads = { head: 0, marker: 0 }
    const store: RunStore.RunStore = {
      ...inner,
      head: (runId) => Effect.suspend(() => (reads.head++, inner.head(runId))),
      journalGet: (runId, key) => Effect.suspend(() => (key === Cancellation.markerKey && reads.marker++, inner.journalGet(runId, key))),
    }
    const HooklineLive = Layer.effect(
      RunEntity.Hookline,
      Effect.map(ClusterAgent.register(agents(() => undefined, 0), store, { lease: 10_000 }), (registered) => ({ store, agents: registered })),
    )
    const layer = Client.layer({ pollInterval: "10 millis" }).pipe(
      Layer.provideMerge(RunEntity.layer().pipe(Layer.provide(HooklineLive))),
      Layer.provideMerge(TestRunner.layer),
    )
    try {
      const result = await Effect.runPromise(
        Effect.scoped(Effect.flatMap(Client.HooklineClient, (client) =>
          Effect.flatMap(client.start("charger", "charge me", { runId: "wrapped-1" }), (runId) => client.result(runId)))).pipe(Effect.provide(layer)),
      )
      expect(result).toMatchObject({ runId: "wrapped-1", status: "completed" })
      // The Start asked the wrapper whether the run was cancelled, and whether it is stored.
      expect(reads.marker).toBe(1)
      expect(reads.head).toBeGreaterThanOrEqual(1)
    } finally {
      await Effect.runPromise(inner.close())
    }
  })
})
