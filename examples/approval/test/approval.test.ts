// The example as a user runs it: `start` in one process (the run suspends and the
// process exits), then `approve`, `edit` or `reject` in another, against the embedded
// store in a temporary folder. Real processes (node + tsx), real PGlite.
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { PgliteStore, RunStore } from "@hookline/store"
import { afterAll, describe, expect, it } from "vitest"

const exampleDir = fileURLToPath(new URL("..", import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), "hookline-approval-"))
const running = new Set<ChildProcess>()

interface Exit {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const command = (script: string, args: ReadonlyArray<string>): Promise<Exit> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", join("src", script), ...args], {
      cwd: exampleDir,
      env: { ...process.env, HOOKLINE_APPROVAL_DATA: dataDir },
      stdio: ["ignore", "pipe", "pipe"],
    })
    running.add(child)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += String(d)))
    child.stderr.on("data", (d) => (stderr += String(d)))
    child.on("error", reject)
    child.on("close", (code) => {
      running.delete(child)
      resolve({ code, stdout, stderr })
    })
  })

const field = (stdout: string, name: string): string | undefined => new RegExp(`^${name}: (.*)$`, "m").exec(stdout)?.[1]

interface LedgerEntry {
  readonly order: string
  readonly amount: number
  readonly key: string
}
const ledger = (): ReadonlyArray<LedgerEntry> => {
  const path = join(dataDir, "refunds.jsonl")
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as LedgerEntry) : []
}

// `start` with a request: the run suspends on the refund; gives the run and call ids.
const suspend = async (request: string) => {
  const started = await command("main.ts", [request])
  expect(started.code, started.stderr).toBe(0)
  expect(field(started.stdout, "status")).toBe("suspended")
  const runId = field(started.stdout, "run") as string
  const pending = /^pending: (\S+) refund (\{.*\}) \((.*)\)$/m.exec(started.stdout)
  expect(pending, started.stdout).not.toBeNull()
  const [, callId, args, reason] = pending as unknown as [string, string, string, string]
  // Nothing was refunded while the run waits.
  expect(ledger().filter((e) => e.key.startsWith(`${runId}:`))).toEqual([])
  return { runId, callId, args: JSON.parse(args) as unknown, reason, stdout: started.stdout }
}

// The run as the store keeps it, read in this process once the others have exited.
const stored = async (runId: string) => {
  const store = await PgliteStore.open({ dataDir: join(dataDir, "store") })
  try {
    const saved = await RunStore.load(store, runId)
    if (saved === undefined) throw new Error(`run ${runId} is not in the store`)
    return saved.state
  } finally {
    await RunStore.close(store)
  }
}

const toolResults = (state: Awaited<ReturnType<typeof stored>>) =>
  state.context.messages.toArray().flatMap((m) => (m.role === "tool" ? [{ id: m.toolCallId, content: m.content, isError: m.isError }] : []))

afterAll(() => {
  // A child left by a failed or timed-out test does not outlive the tests.
  for (const child of running) child.kill("SIGKILL")
  rmSync(dataDir, { recursive: true, force: true })
})

describe("the approval example, in separate processes", () => {
  it("suspends above the limit, exits, and an approval in a new process finishes the run", async () => {
    const { runId, callId, args, reason, stdout } = await suspend("Please refund 250 on order A7: the parcel never arrived.")
    expect(args).toEqual({ order: "A7", amount: 250 })
    expect(reason).toBe("a refund of 250 is above the limit of 100")
    expect(stdout).toContain(`pnpm --filter @hookline/example-approval approve ${runId}`)

    const approved = await command("decide.ts", ["approve", runId])
    expect(approved.code, approved.stderr).toBe(0)
    expect(field(approved.stdout, "status")).toBe("completed")
    expect(field(approved.stdout, "answer")).toBe('Refund done: {"refunded":250,"order":"A7"}')
    // The refund ran once, with the approved amount and the call's idempotency key.
    expect(ledger().filter((e) => e.key.startsWith(`${runId}:`))).toEqual([{ order: "A7", amount: 250, key: `${runId}:${callId}` }])

    const final = await stored(runId)
    expect(final.execution.status).toBe("completed")
    expect(final.execution.pendingCalls).toBeUndefined()
    expect(toolResults(final)).toEqual([{ id: callId, content: '{"refunded":250,"order":"A7"}', isError: false }])

    // A second approval finds nothing to decide and refunds nothing.
    const again = await command("decide.ts", ["approve", runId])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`run ${runId} is completed: nothing to decide`)
    expect(ledger().filter((e) => e.key.startsWith(`${runId}:`))).toHaveLength(1)
  }, 300_000)

  it("an edited amount is the one refunded", async () => {
    const { runId, callId } = await suspend("Refund 900 on order B12")
    const edited = await command("decide.ts", ["edit", runId, "80"])
    expect(edited.code, edited.stderr).toBe(0)
    expect(field(edited.stdout, "status")).toBe("completed")
    expect(ledger().filter((e) => e.key.startsWith(`${runId}:`))).toEqual([{ order: "B12", amount: 80, key: `${runId}:${callId}` }])
    const final = await stored(runId)
    expect(final.execution.status).toBe("completed")
    expect(toolResults(final)).toEqual([{ id: callId, content: '{"refunded":80,"order":"B12"}', isError: false }])
  }, 300_000)

  it("a rejection refunds nothing and the model reads the message", async () => {
    const { runId, callId } = await suspend("Refund 400 on order C3")
    const rejected = await command("decide.ts", ["reject", runId, "the customer already got a voucher"])
    expect(rejected.code, rejected.stderr).toBe(0)
    expect(field(rejected.stdout, "status")).toBe("completed")
    expect(field(rejected.stdout, "answer")).toContain("No refund: ")
    expect(field(rejected.stdout, "answer")).toContain("the customer already got a voucher")
    expect(ledger().filter((e) => e.key.startsWith(`${runId}:`))).toEqual([])
    const final = await stored(runId)
    expect(final.execution.status).toBe("completed")
    const [result] = toolResults(final)
    expect(result?.id).toBe(callId)
    expect(result?.isError).toBe(true)
    expect(result?.content).toContain("the customer already got a voucher")
  }, 300_000)

  it("a refund within the limit runs without asking", async () => {
    const started = await command("main.ts", ["Refund 40 on order D9"])
    expect(started.code, started.stderr).toBe(0)
    expect(field(started.stdout, "status")).toBe("completed")
    const runId = field(started.stdout, "run") as string
    expect(ledger().filter((e) => e.key.startsWith(`${runId}:`)).map((e) => e.amount)).toEqual([40])
  }, 300_000)

  it("a bad command line is refused before anything is opened", async () => {
    const bad = await command("decide.ts", ["edit", "some-run", "-5"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('edit: expected a positive amount, got "-5"')
    const none = await command("decide.ts", ["approve"])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain("usage:")
  }, 300_000)
})
