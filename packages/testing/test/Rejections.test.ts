// The watcher is proved in a child process: an unhandled rejection in this one would be
// reported by vitest too, against the whole run.
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { Rejections } from "@hookline/testing"

const cwd = fileURLToPath(new URL("..", import.meta.url))
const inChild = (body: string): string =>
  execFileSync(process.execPath, ["--conditions=@hookline/source", "--import", "tsx", "--input-type=module", "-e", `import { Rejections } from "@hookline/testing"\n${body}`], {
    cwd,
    encoding: "utf8",
    stdio: "pipe",
  }).trim()

describe("Rejections", () => {
  it("records every unhandled rejection once Node reported it, in order, and nothing a handler took", () => {
    const out = inChild([
      "const w = Rejections.watch()",
      "Promise.reject(new Error(\"first\"))",
      "Promise.reject(new Error(\"handled\")).catch(() => {})",
      "Promise.reject(\"second\")",
      "const seen = await w.settled()",
      "w.stop()",
      "console.log(JSON.stringify(seen.map((e) => e instanceof Error ? e.message : e)))",
    ].join("\n"))
    expect(JSON.parse(out)).toEqual(["first", "second"])
  })

  it("stops listening with stop(): a later rejection is Node's again (the process fails)", () => {
    expect(() => inChild("const w = Rejections.watch()\nw.stop()\nPromise.reject(new Error(\"after stop\"))")).toThrow(/after stop/)
  })

  it("sees none where nothing was left unhandled", async () => {
    const w = Rejections.watch()
    try {
      await Promise.reject(new Error("awaited")).catch(() => undefined)
      expect(await w.settled()).toEqual([])
    } finally {
      w.stop()
    }
  })
})
