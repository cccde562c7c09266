// Kills a real process with SIGKILL at random points of a run, resumes the run in a new
// process from PostgreSQL, and checks what a user relies on. (The child also runs on
// the embedded store, `pglite`; see docs/durability.md for why that case is not here.)
import { Codecs } from "@hookline/core"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PostgresStore, RunStore } from "../src/index.js"
import { temporaryFolder } from "./support/folders.js"
import { startPostgres, type Server } from "./support/postgres.js"

const child = fileURLToPath(new URL("./crash/child.ts", import.meta.url))
const root = fileURLToPath(new URL("../../..", import.meta.url))

interface Outcome {
  readonly stdout: string
  readonly killed: boolean
  readonly elapsed: number
}

// Runs the child; with `killAfterMs`, kills it with SIGKILL that long after its run
// began (unless it ended first).
const runChild = (args: ReadonlyArray<string>, killAfterMs?: number): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", child, ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    proc.stdout.on("data", (d) => (stdout += String(d)))
    let timer: ReturnType<typeof setTimeout> | undefined
    proc.stderr.on("data", (d) => {
      stderr += String(d)
      if (killAfterMs !== undefined && timer === undefined && stderr.includes("ready\n")) {
        timer = setTimeout(() => proc.kill("SIGKILL"), killAfterMs)
      }
    })
    proc.on("error", reject)
    proc.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer)
      if (signal === "SIGKILL") return resolve({ stdout, killed: true, elapsed: 0 })
      if (code !== 0) return reject(new Error(`child exited ${code}: ${stderr}`))
      resolve({ stdout, killed: false, elapsed: Number(/elapsed:(\d+)/.exec(stderr)?.[1] ?? 0) })
    })
  })

// Tool call ids are random: name them by order of appearance to compare runs.
const normalized = (text: string) => {
  const names = new Map<string, string>()
  const messages = JSON.stringify(JSON.parse(text).context.messages)
  return messages.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
    if (!names.has(id)) names.set(id, `id${names.size}`)
    return names.get(id) as string
  })
}

interface Entry {
  readonly toolCallId: string
  readonly key: string
  readonly amount: number
}
const entriesOf = (log: string): ReadonlyArray<Entry> =>
  existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Entry) : []

// A small deterministic generator: the kill times of a seed are the same on every machine.
const killTimes = (seed: number, count: number): ReadonlyArray<number> => {
  let x = seed * 2654435761 % 4294967296
  return Array.from({ length: count }, () => {
    x = (x * 1664525 + 1013904223) % 4294967296
    return x / 4294967296
  })
}

const folder = temporaryFolder("crash")
let server: Server | undefined

beforeAll(async () => {
  server = await startPostgres()
}, 120_000)

afterAll(async () => {
  try {
    await server?.stop()
  } finally {
    folder.remove()
  }
}, 60_000)

const scenario = async (
  label: string,
  where: string,
  kind: "postgres",
  open: () => Promise<RunStore.RunStore>,
  seeds: ReadonlyArray<number>,
) => {
  const reference = await runChild([kind, where, `${label}-reference`, join(folder.path, `${label}-reference.log`), "run"])
  // How long a run takes here: kills fall anywhere in it.
  const span = reference.elapsed
  let killedMidRun = 0
  for (const seed of seeds) {
    const runId = `${label}-seed-${seed}`
    const log = join(folder.path, `${runId}.log`)
    const [fraction] = killTimes(seed, 1) as [number]
    const first = await runChild([kind, where, runId, log, "run"], Math.floor(span * fraction))
    // What the journal held when the process died.
    const store = await open()
    const stored = await RunStore.load(store, runId).finally(() => undefined)
    const journaled = new Set<string>()
    if (stored !== undefined) {
      for (const entry of entriesOf(log)) {
        const key = `tool:${stored.state.execution.startedAt}:${entry.toolCallId}`
        if ((await Effect.runPromise(store.journalGet(runId, key))) !== undefined) journaled.add(entry.toolCallId)
      }
    }
    await RunStore.close(store)
    if (!first.killed) continue
    if (stored === undefined) continue // killed before the first checkpoint: nothing to resume
    killedMidRun++
    const resumed = await runChild([kind, where, runId, log, "resume"])
    const final = JSON.parse(resumed.stdout)
    // Every run completes, with the messages and tool results of a run never killed.
    expect(final.execution.status).toBe("completed")
    expect(normalized(resumed.stdout)).toEqual(normalized(reference.stdout))
    Codecs.decodeUnsafe(Codecs.AgentState, final)
    const counts = new Map<string, Array<Entry>>()
    for (const entry of entriesOf(log)) counts.set(entry.toolCallId, [...(counts.get(entry.toolCallId) ?? []), entry])
    for (const [id, runs] of counts) {
      // No journaled call ran again; a call ran twice only when the kill fell between its
      // side effect and its journal write, and then with the same idempotency key.
      if (journaled.has(id)) expect(runs, `journaled call ${id} ran again`).toHaveLength(1)
      expect(runs.length).toBeLessThanOrEqual(2)
      expect(new Set(runs.map((r) => r.key)).size).toBe(1)
      expect(runs[0]?.key).toBe(`${runId}:${id}`)
    }
    // Every tool result in the final state was charged.
    const answered = (final.context.messages as Array<{ role: string; toolCallId?: string }>).filter((m) => m.role === "tool")
    expect(answered.map((m) => m.toolCallId).every((id) => counts.has(id as string))).toBe(true)
  }
  return killedMidRun
}

describe("a run killed with SIGKILL", () => {
  it("resumes from PostgreSQL as if never killed", async () => {
    const where = (server as Server).connectionString
    const killed = await scenario("postgres", where, "postgres", () => PostgresStore.open({ connectionString: where }), [5, 6, 7, 8])
    expect(killed).toBeGreaterThan(0)
  }, 600_000)
})
