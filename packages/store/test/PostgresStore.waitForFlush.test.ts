// What PostgresStore's acknowledgement means when the database server crashes: by default
// a commit is acknowledged once flushed, so every one reads back after the crash; with
// `waitForFlush: false` (synchronous_commit = off on the store's connections) the server
// keeps a prefix of what it acknowledged, at least what was flushed: the run loads at an
// acknowledged checkpoint, with the journal entries acknowledged before it, and goes on.
import { AgentState, Message } from "@hookline/core"
import { Effect, Exit } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { PostgresStore, RunStore } from "../src/index.js"
import { crashableServer } from "./support/crashableServer.js"

const server = crashableServer()
const connectionString = () => server().connectionString

// A run's path, as a tool step writes it: a journal entry, then a checkpoint; every
// acknowledged state by its sequence number, and every acknowledged key in order.
// `midway`, after the first half of the steps.
const writeRun = async (store: RunStore.RunStore, runId: string, steps: number, midway?: () => Promise<void>) => {
  const acknowledged = new Map<number, AgentState>()
  const keys: Array<{ readonly key: string; readonly beforeSeq: number }> = []
  let saved = await RunStore.save(store, AgentState.make({ id: runId, messages: [Message.user("go")] }))
  acknowledged.set(saved.seq, saved.state)
  let flushed = 0
  for (let i = 0; i < steps; i++) {
    if (i === steps / 2 && midway !== undefined) {
      await midway()
      flushed = saved.seq
    }
    const key = `tool:${i}`
    expect(await Effect.runPromise(store.journalPut(runId, key, JSON.stringify({ step: i })))).toBe(true)
    keys.push({ key, beforeSeq: saved.seq + 1 })
    saved = await RunStore.save(store, AgentState.appendMessage(saved.state, Message.assistant(`step ${i}`)), saved)
    acknowledged.set(saved.seq, saved.state)
  }
  return { acknowledged, keys, head: saved.seq, flushed }
}

// The settings each of the store's connections runs with, read on those connections.
const settingsOf = async (options: { readonly waitForFlush?: boolean }) => {
  const made: Array<pg.Client> = []
  class Probe extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super(config)
      made.push(this)
    }
  }
  const store = await PostgresStore.open({ config: { connectionString: connectionString(), max: 2, Client: Probe }, ...options })
  try {
    await Promise.all([RunStore.list(store, { limit: 1 }), RunStore.list(store, { limit: 1 })])
    expect(made.length).toBeGreaterThan(0)
    return await Promise.all(made.map(async (client) => (await client.query("SHOW synchronous_commit")).rows[0]?.synchronous_commit as string))
  } finally {
    await RunStore.close(store)
  }
}

describe("PostgresStore's waitForFlush", () => {
  it("runs every connection of the store with synchronous_commit off when false, on by default", async () => {
    const off = await settingsOf({ waitForFlush: false })
    expect(off.every((setting) => setting === "off")).toBe(true)
    const on = await settingsOf({})
    expect(on.every((setting) => setting === "on")).toBe(true)
  })

  it("refuses waitForFlush: false with a pool of yours, naming the option", async () => {
    const pool = new pg.Pool({ connectionString: connectionString(), max: 1 })
    try {
      const opened = await Effect.runPromiseExit(PostgresStore.openEffect({ pool, waitForFlush: false }))
      expect(Exit.isFailure(opened)).toBe(true)
      if (Exit.isFailure(opened)) expect(String(opened.cause.reasons.map((r) => r._tag === "Fail" ? `${r.error._tag} ${r.error.message}` : r._tag))).toMatch(/StoreFailed.*waitForFlush/)
    } finally {
      await pool.end()
    }
  })
})

describe("PostgresStore across a crash of the database server", () => {
  it("reads back every commit it acknowledged, by default", async () => {
    const store = await PostgresStore.open({ connectionString: connectionString() })
    const written = await writeRun(store, "server-crash-default", 30)
    await server().crash()
    await RunStore.close(store)
    const after = await PostgresStore.open({ connectionString: connectionString() })
    try {
      const loaded = await RunStore.load(after, "server-crash-default")
      expect(loaded?.seq).toBe(written.head)
      expect(loaded?.state).toEqual(written.acknowledged.get(written.head))
      for (const { key } of written.keys) expect(await Effect.runPromise(after.journalGet("server-crash-default", key))).toBeDefined()
    } finally {
      await RunStore.close(after)
    }
  }, 120_000)

  it("keeps a prefix of what it acknowledged with waitForFlush: false: the run loads at an acknowledged checkpoint and goes on", async () => {
    const store = await PostgresStore.open({ connectionString: connectionString(), waitForFlush: false })
    // Midway, a commit that waits for the flush (another connection's): the WAL is one
    // sequence, so it flushes every commit before it, the store's first half with it.
    const admin = new pg.Client({ connectionString: connectionString() })
    await admin.connect()
    const written = await writeRun(store, "server-crash-unflushed", 30, async () => {
      await admin.query("CREATE TABLE IF NOT EXISTS flush_mark (at bigint)")
      await admin.query("INSERT INTO flush_mark VALUES ($1)", [Date.now()])
    })
    await admin.end()
    await server().crash()
    await RunStore.close(store)
    const after = await PostgresStore.open({ connectionString: connectionString(), waitForFlush: false })
    try {
      const loaded = await RunStore.load(after, "server-crash-unflushed")
      const seq = loaded?.seq ?? 0
      expect(written.flushed).toBeGreaterThan(1)
      expect(seq).toBeGreaterThanOrEqual(written.flushed)
      expect(seq).toBeLessThanOrEqual(written.head)
      expect(loaded?.state).toEqual(written.acknowledged.get(seq))
      // Every entry acknowledged before the checkpoint that survived survived with it.
      for (const { key, beforeSeq } of written.keys) {
        if (beforeSeq <= seq) expect(await Effect.runPromise(after.journalGet("server-crash-unflushed", key))).toBeDefined()
      }
      const next = await RunStore.save(after, AgentState.appendMessage((loaded as RunStore.Saved).state, Message.assistant("after the crash")), loaded)
      expect((await RunStore.load(after, "server-crash-unflushed"))?.state).toEqual(next.state)
    } finally {
      await RunStore.close(after)
    }
  }, 120_000)
})
