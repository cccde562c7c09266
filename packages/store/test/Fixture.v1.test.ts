// Runs stored by @hookline/store 0.1.0 (checkpoint format version 1, fixtures/v1.json,
// written by fixtures/generate-v1.ts) still load and resume, on every store.
import { Decision } from "@hookline/agent"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { beforeAll, describe, expect, it } from "vitest"
import { MemoryStore, RunStore } from "../src/index.js"
import { fixtureAgent } from "./fixtures/fixtureAgent.js"
import { pgliteForAll, postgresForAll } from "./support/storeForAll.js"

interface Fixture {
  readonly runs: ReadonlyArray<{
    readonly runId: string
    readonly status: RunStore.RunSummary["status"]
    readonly rows: ReadonlyArray<{ readonly seq: number; readonly body: string }>
    readonly journal: ReadonlyArray<{ readonly key: string; readonly body: string }>
  }>
}

const fixture = JSON.parse(readFileSync(new URL("./fixtures/v1.json", import.meta.url), "utf8")) as Fixture

// Writes the fixture's rows and journal as they were stored, row by row.
const restore = async (store: RunStore.RunStore) => {
  for (const run of fixture.runs) {
    for (const { key, body } of run.journal) await Effect.runPromise(store.journalPut(run.runId, key, body))
    for (const { seq, body } of run.rows) {
      const commit = { runId: run.runId, seq, status: run.status, at: 1_000 + seq, body }
      await (seq === 1 ? Effect.runPromise(store.create(commit, false)) : Effect.runPromise(store.commit(commit)))
    }
  }
}

// One run of the fixture under another id (its rows name their run).
const restoreAs = async (store: RunStore.RunStore, from: string, to: string) => {
  const run = fixture.runs.find((r) => r.runId === from)
  if (run === undefined) throw new Error(`no run ${from} in the fixture`)
  for (const { key, body } of run.journal) await Effect.runPromise(store.journalPut(to, key, body))
  for (const { seq, body } of run.rows) {
    const commit = { runId: to, seq, status: run.status, at: 1_000 + seq, body: body.replace(`"id":"${from}"`, `"id":"${to}"`) }
    await (seq === 1 ? Effect.runPromise(store.create(commit, false)) : Effect.runPromise(store.commit(commit)))
  }
}

const cases = (open: () => RunStore.RunStore) => {
  it("loads a completed run and gives it back as it is, running nothing", async () => {
    const store = open()
    const loaded = await RunStore.load(store, "v1-completed")
    expect(loaded?.state.execution.status).toBe("completed")
    expect(loaded?.state.context.messages.length).toBe(11)
    const { agent, log } = fixtureAgent(store)
    const again = await agent.resume("v1-completed")
    expect(again).toEqual(loaded?.state)
    expect(log).toEqual([])
  })

  it("resumes a run that crashed inside a step: the journaled answer and result replay, only the rest runs", async () => {
    const store = open()
    const { agent, log } = fixtureAgent(store)
    const final = await agent.resume("v1-crashed")
    expect(final.execution.status).toBe("completed")
    expect(log.map((c) => c.toolCallId)).toEqual(["call-1-1", "call-2-0", "call-2-1"])
    expect(final.context.messages.at(-1)).toMatchObject({ role: "assistant", content: "charged 6 times" })
    expect((await RunStore.load(store, "v1-crashed"))?.state).toEqual(final)
  })

  it("resumes a suspended run with a decision", async () => {
    const store = open()
    const loaded = await RunStore.load(store, "v1-suspended")
    expect(loaded?.state.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["call-1-1"])
    const { agent, log } = fixtureAgent(store, { approveAmount: 11 })
    const final = await agent.resume("v1-suspended", [Decision.approve("call-1-1")])
    expect(final.execution.status).toBe("completed")
    expect(log.map((c) => c.toolCallId)).toEqual(["call-1-1", "call-2-0", "call-2-1"])
  })

  it("goes on at format version 2 after its version 1 checkpoints, with the envelope the resuming agent gives", async () => {
    const store = open()
    await restoreAs(store, "v1-crashed", "v1-crashed-again")
    expect((await RunStore.load(store, "v1-crashed-again"))?.envelope).toEqual({})
    const { agent, log } = fixtureAgent(store, { envelope: { agent: "charger" } })
    const final = await agent.resume("v1-crashed-again")
    expect(final.execution.status).toBe("completed")
    expect(log.map((c) => c.toolCallId)).toEqual(["call-1-1", "call-2-0", "call-2-1"])
    const versions = (await Effect.runPromise(store.rows("v1-crashed-again"))).map((row) => JSON.parse(row.body).v as number)
    expect(versions.slice(0, 2)).toEqual([1, 1])
    expect(versions.slice(2).every((v) => v === 2) && versions.length > 2).toBe(true)
    const saved = await RunStore.load(store, "v1-crashed-again")
    expect(saved?.envelope).toEqual({ agent: "charger" })
    expect(saved?.state).toEqual(final)
  })
}

describe("version 1 runs on MemoryStore", () => {
  let store: RunStore.RunStore | undefined
  beforeAll(async () => {
    store = MemoryStore.make()
    await restore(store)
  })
  cases(() => store as RunStore.RunStore)
})

describe("version 1 runs on PgliteStore", () => {
  const pglite = pgliteForAll("pglite-v1", restore)
  cases(() => pglite.store)
})

describe("version 1 runs on PostgresStore", () => {
  const postgres = postgresForAll(restore)
  cases(() => postgres.store)
})
