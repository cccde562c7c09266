// One command: PostgreSQL (embedded), two runner processes and this process as the client.
// It starts RUNS runs (default 100) of the `refunds` agent; every other refund is above the
// limit and waits for approval, which this client gives; once a quarter of the refunds are
// made, runner A is killed (SIGKILL). Runner B takes A's shards after the lock expiry and
// finishes its runs. At the end it checks every run in the store: completed, one refund.
import { Decision } from "@hookline/agent"
import { Runner } from "@hookline/cluster"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Refund } from "./agents.js"
import * as Postgres from "./postgres.js"

const runs = Number(process.env["RUNS"] ?? 100)
const agentsModule = fileURLToPath(new URL("./agents.ts", import.meta.url))
const runnerBin = join(dirname(fileURLToPath(import.meta.resolve("@hookline/cluster/package.json"))), "src", "bin", "runner.ts")
const folder = mkdtempSync(join(tmpdir(), "hookline-example-cluster-log-"))
const log = join(folder, "refunds.jsonl")
// Short locks, so the pause after the kill is seconds (the shipped default is 10 s).
const timings = ["--lock-expiration", "3 seconds", "--lock-refresh", "1 second", "--assignments-refresh", "1 second"]
const say = (line: string) => process.stdout.write(`${line}\n`)

const refunds = (): Array<Refund> =>
  existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Refund) : []

const startRunner = (name: string, database: string, port: number): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", runnerBin, "--agents", agentsModule, "--db", database, "--port", String(port), ...timings], {
      env: { ...process.env, REFUND_LOG: log },
      stdio: ["ignore", "inherit", "pipe"],
    })
    let stderr = ""
    child.stderr?.on("data", (d) => {
      stderr += String(d)
      if (stderr.includes("hookline-runner ready")) {
        say(`runner ${name} ready (pid ${child.pid}, port ${port})`)
        resolve(child)
      }
    })
    child.on("error", reject)
    child.on("exit", (code, signal) => (signal === null ? reject(new Error(`runner ${name} exited ${code}: ${stderr.slice(-2_000)}`)) : undefined))
  })

const pg = await Postgres.start()
const runners: Array<ChildProcess> = []
let ok = false
try {
  say(`PostgreSQL on ${pg.url.replace(/:[^:@]*@/, ":***@")}`)
  runners.push(await startRunner("A", pg.url, await Postgres.freePort()), await startRunner("B", pg.url, await Postgres.freePort()))
  // The client takes the runners' lock expiry: it counts a runner alive while its heartbeat
  // is younger than its own, so with the default 10 s it would ask dead A for 7 s more.
  const client = await Runner.openClient({
    database: pg.url,
    settings: { lockExpiration: "3 seconds", lockRefresh: "1 second", assignmentsRefresh: "1 second", messagePoll: "1 second" },
    client: { pollInterval: "250 millis" },
  })
  try {
    const began = Date.now()
    const ids = Array.from({ length: runs }, (_, i) => `refund-${i}`)
    let approvals = 0
    const one = async (runId: string, i: number) => {
      await client.start("refunds", `refund ${i % 2 === 0 ? 40 : 250} on order A${i}`, { runId })
      let summary = await client.result(runId)
      while (summary.status === "suspended") {
        approvals += summary.pending.length
        summary = await client.resume(runId, summary.pending.map((p) => Decision.approve(p.toolCallId)))
      }
      return summary
    }
    const killer = (async () => {
      while (refunds().length < runs / 4) await new Promise((resolve) => setTimeout(resolve, 50))
      const a = runners[0] as ChildProcess
      const onA = new Set(refunds().filter((r) => r.pid === a.pid).map((r) => r.runId)).size
      a.kill("SIGKILL")
      say(`killed runner A (SIGKILL) after ${refunds().length} refunds, ${onA} of them on A`)
    })()
    const summaries = await Promise.all(ids.map(one))
    await killer
    // The check: every run completed, with one refund (a call in flight when A died may
    // have run again on B with the same idempotency key, which a payment API dedupes).
    const byRun = new Map<string, Set<string>>()
    for (const r of refunds()) byRun.set(r.runId, (byRun.get(r.runId) ?? new Set()).add(r.key))
    const repeats = refunds().length - [...byRun.values()].reduce((n, keys) => n + keys.size, 0)
    const completed = summaries.filter((s) => s.status === "completed").length
    const once = ids.every((id) => byRun.get(id)?.size === 1)
    const finishedOnB = new Set(refunds().filter((r) => r.pid === runners[1]?.pid).map((r) => r.runId)).size
    say(`${runs} runs in ${Date.now() - began} ms: ${completed} completed, ${approvals} approvals given, ${finishedOnB} refunded on runner B`)
    say(`refund calls repeated with the same key after the kill: ${repeats}`)
    ok = completed === runs && once
    say(ok ? `every run finished once` : `NOT every run finished once`)
  } finally {
    await client.close()
  }
} finally {
  for (const r of runners) r.kill("SIGTERM")
  await Promise.all(runners.map((r) => (r.exitCode !== null || r.signalCode !== null ? undefined : new Promise((resolve) => r.once("exit", resolve)))))
  await pg.stop()
  rmSync(folder, { recursive: true, force: true })
}
process.exit(ok ? 0 : 1)
