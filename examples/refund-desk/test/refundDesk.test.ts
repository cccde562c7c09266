// The refund desk as a user runs it (issue 26's "done when"): process 1 starts the run,
// which suspends on the approval, and exits; process 2 approves with
// `agent.resumeStream(runId, { decisions, context })` and streams the answer; the
// refund ran once. Real processes (node + tsx), real PGlite, a scripted model.
import { spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { HookLaws } from "@hookline/testing"
import { Approval } from "@hookline/middleware"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { issueRefund, refundPolicy } from "../src/desk.js"

const exampleDir = fileURLToPath(new URL("..", import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), "hookline-refund-desk-"))
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
      env: { ...process.env, REFUND_DESK_DATA: dataDir },
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

const ledger = (): ReadonlyArray<{ readonly order: string; readonly amount: number; readonly by: string; readonly key: string }> => {
  const path = join(dataDir, "refunds.jsonl")
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)) : []
}

afterAll(() => {
  for (const child of running) child.kill("SIGKILL")
  rmSync(dataDir, { recursive: true, force: true })
})

describe("the refund desk", () => {
  it("keeps the hook laws: the policy is typed over the desk's context, with no cast", () => {
    const runContext = fc.record({ agent: fc.string(), approvalLimit: fc.integer({ min: 0, max: 1000 }) })
    const report = HookLaws.check(Approval.forTool(issueRefund, refundPolicy), { arbitraries: { runContext } })
    expect(report.laws.map((l) => l.law)).toContain("deterministic")
  }, 120_000)

  it("suspends a refund of \"250\" in one process, and another approves it, streaming the answer; the refund runs once", async () => {
    const started = await command("start.ts", ["Please refund 250 on order A7: the parcel never arrived."])
    expect(started.code, started.stderr).toBe(0)
    expect(field(started.stdout, "status")).toBe("suspended")
    const runId = field(started.stdout, "run") as string
    // The model sent the amount as a string; the policy read it as the tool decodes it.
    expect(field(started.stdout, "pending")).toBe(`refund-A7 {"order":"A7","amount":"250"} (a refund of 250 on order A7 is above the desk's limit)`)
    expect(ledger()).toEqual([])

    const approved = await command("approve.ts", [runId])
    expect(approved.code, approved.stderr).toBe(0)
    expect(field(approved.stdout, "tool")).toBe("issueRefund success")
    expect(field(approved.stdout, "text")).toBe('Refund done: {"refunded":250,"order":"A7"}')
    expect(field(approved.stdout, "status")).toBe("completed")
    expect(field(approved.stdout, "answer")).toBe('Refund done: {"refunded":250,"order":"A7"}')
    expect(ledger()).toEqual([{ order: "A7", amount: 250, by: "sam", key: `${runId}:refund-A7` }])

    // Approving again finds nothing to decide: the refund is not repeated.
    const again = await command("approve.ts", [runId])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`run ${runId} is completed: nothing to approve`)
    expect(ledger()).toHaveLength(1)
  }, 300_000)

  it("a refund under the limit runs without asking", async () => {
    const started = await command("start.ts", ["refund 40 on order B2"])
    expect(started.code, started.stderr).toBe(0)
    expect(field(started.stdout, "status")).toBe("completed")
    expect(ledger().filter((e) => e.order === "B2")).toEqual([expect.objectContaining({ order: "B2", amount: 40, by: "sam" })])
  }, 300_000)
})
