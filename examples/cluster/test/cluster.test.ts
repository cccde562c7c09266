// The example as a user runs it (`pnpm start`), leaner: 20 runs instead of 100. Real
// processes: embedded PostgreSQL, two runners (one SIGKILLed), the client. The example
// removes its data folders itself; the test kills the process if the ceiling is reached.
import { spawn, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const exampleDir = fileURLToPath(new URL("..", import.meta.url))
let child: ChildProcess | undefined

afterAll(() => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
})

describe("examples/cluster", () => {
  it("runs 20 refunds with approvals on two runners, kills one, and every run finishes once", async () => {
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      child = spawn(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", "src/main.ts"], {
        cwd: exampleDir,
        env: { ...process.env, RUNS: "20" },
        stdio: ["ignore", "pipe", "pipe"],
      })
      let out = ""
      let err = ""
      child.stdout?.on("data", (d) => (out += String(d)))
      child.stderr?.on("data", (d) => (err += String(d)))
      child.on("error", reject)
      child.on("close", (exit) => resolve({ code: exit, stdout: exit === 0 ? out : `${out}\n${err.slice(-4_000)}` }))
    })
    expect(code, stdout).toBe(0)
    expect(stdout).toMatch(/killed runner A \(SIGKILL\)/)
    expect(stdout).toMatch(/20 runs in \d+ ms: 20 completed, 10 approvals given/)
    expect(stdout).toContain("every run finished once")
  }, 180_000)
})
