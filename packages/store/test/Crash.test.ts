// Kills a real process with SIGKILL at random points of a run, resumes the run in a new
// process from the embedded store (PGlite) and from PostgreSQL, and checks what a user
// relies on: every write the store acknowledged survived, and the run ends as if never
// killed.
import { Codecs } from "@hookline/core"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PgliteStore, PostgresStore, RunStore } from "../src/index.js"
import { temporaryFolder } from "./support/folders.js"
import { startPostgres, type Server } from "./support/postgres.js"

const child = fileURLToPath(new URL("./crash/child.ts", import.meta.url))
const root = fileURLToPath(new URL("../../..", import.meta.url))

interface Outcome {
  readonly stdout: string
  readonly killed: boolean
  /** The checkpoint sequence numbers and journal keys the store acknowledged. */
  readonly commits: ReadonlyArray<number>
  readonly journaled: ReadonlyArray<string>
}

// Where to kill: `delayMs` after the child's `afterEffects`-th tool side effect (0: after
// it is ready). Anchored on the child's progress, not on the clock alone, so that kills
// fall within the run on a slow, loaded machine too.
interface Kill {
  readonly afterEffects: number
  readonly delayMs: number
}

const marks = (stderr: string, prefix: string) =>
  stderr.split("\n").filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length))

// Runs the child; with `kill`, kills it with SIGKILL at that point (unless it ended first).
const runChild = (args: ReadonlyArray<string>, kill?: Kill): Promise<Outcome> =>
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
      if (kill !== undefined && timer === undefined && stderr.includes("ready\n") && marks(stderr, "effect").length >= kill.afterEffects) {
        timer = setTimeout(() => proc.kill("SIGKILL"), kill.delayMs)
      }
    })
    proc.on("error", reject)
    proc.on("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer)
      const commits = marks(stderr, "commit:").map(Number)
      const journaled = marks(stderr, "journal:")
      if (signal === "SIGKILL") return resolve({ stdout, killed: true, commits, journaled })
      if (code !== 0) return reject(new Error(`child exited ${code}: ${stderr}`))
      resolve({ stdout, killed: false, commits, journaled })
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

// A small deterministic generator: the kill points of a seed are the same on every
// machine. The reference run has 8 side effects and takes a few hundred milliseconds.
const killOf = (seed: number): Kill => {
  // mulberry32
  let x = seed >>> 0
  const next = () => {
    x = (x + 0x6d2b79f5) >>> 0
    let t = Math.imul(x ^ (x >>> 15), x | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { afterEffects: Math.floor(next() * 9), delayMs: Math.floor(next() * 40) }
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
  kind: "pglite" | "postgres",
  open: () => Promise<RunStore.RunStore>,
  seeds: ReadonlyArray<number>,
) => {
  const reference = await runChild([kind, where, `${label}-reference`, join(folder.path, `${label}-reference.log`), "run"])
  let killedMidRun = 0
  for (const seed of seeds) {
    const runId = `${label}-seed-${seed}`
    const log = join(folder.path, `${runId}.log`)
    const first = await runChild([kind, where, runId, log, "run"], killOf(seed))
    // What the store held when the process died: every write it acknowledged.
    const store = await open()
    const stored = await RunStore.load(store, runId).finally(() => undefined)
    const journaled = new Set<string>()
    try {
      expect(stored?.seq ?? 0, `seed ${seed}: acknowledged checkpoints lost`).toBeGreaterThanOrEqual(Math.max(0, ...first.commits))
      for (const key of first.journaled) {
        expect(await Effect.runPromise(store.journalGet(runId, key)), `seed ${seed}: acknowledged journal entry ${key} lost`).toBeDefined()
      }
      if (stored !== undefined) {
        for (const entry of entriesOf(log)) {
          const key = `tool:${stored.state.execution.startedAt}:${entry.toolCallId}`
          if ((await Effect.runPromise(store.journalGet(runId, key))) !== undefined) journaled.add(entry.toolCallId)
        }
      }
    } finally {
      await RunStore.close(store)
    }
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

// Seeds per store: each costs two processes and three store opens (seconds on a slow
// machine), so the file stays within a few minutes by default. A longer soak:
// HOOKLINE_CRASH_SEEDS=40 npx vitest run packages/store/test/Crash.test.ts
const seedCount = Math.max(1, Math.min(1_000, Number(process.env["HOOKLINE_CRASH_SEEDS"] ?? 6) || 6))
const seeds = Array.from({ length: seedCount }, (_, i) => i + 1)

describe("a run killed with SIGKILL", () => {
  it("resumes from the embedded store (PGlite) as if never killed", async () => {
    const where = join(folder.path, "pglite")
    const killed = await scenario("pglite", where, "pglite", () => PgliteStore.open({ dataDir: where }), seeds)
    expect(killed).toBeGreaterThan(seeds.length / 2)
  }, 600_000)

  it("resumes from PostgreSQL as if never killed", async () => {
    const where = (server as Server).connectionString
    const killed = await scenario("postgres", where, "postgres", () => PostgresStore.open({ connectionString: where }), seeds)
    expect(killed).toBeGreaterThan(seeds.length / 2)
  }, 600_000)
})
