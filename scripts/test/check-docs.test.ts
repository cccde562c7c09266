import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"

const script = fileURLToPath(new URL("../check-docs.mjs", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "check-docs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the checker on one markdown text; its exit code and output. */
const check = async (name: string, markdown: string): Promise<{ code: number; output: string }> => {
  writeFileSync(join(dir, `${name}.md`), markdown)
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [script, `${name}.md`], {
      cwd: dir,
      env: { ...process.env, DOCS_CHECK_NAME: `test-${name}` },
    })
    return { code: 0, output: stdout }
  } catch (error) {
    const failed = error as { code: number; stdout: string }
    return { code: failed.code, output: failed.stdout }
  }
}

describe("check-docs", () => {
  it("passes blocks that compile under the strict settings, with @hookline/* from source", async () => {
    const result = await check("good", [
      "# ok", "", "```ts",
      'import { AgentState, Message } from "@hookline/core"',
      'const state = AgentState.make({ id: "a", messages: [Message.user("hi")] })',
      "state.context.messages.last()?.content",
      "```", "", "```sh", "not ts", "```", "",
    ].join("\n"))
    expect(result.output).toContain("check-docs: 1 ts block(s) of 1 file(s) compile")
    expect(result.code).toBe(0)
  })

  it("fails a block that does not compile, naming the markdown line", async () => {
    const result = await check("bad", [
      "# bad", "", "text", "", "```ts",
      'import { HookContext, type Hook } from "@hookline/core"',
      "// strict: ctx.request is possibly undefined",
      "const window: Hook = (ctx) => HookContext.withRequest(ctx, { ...ctx.request, messages: ctx.request.messages.slice(-4) })",
      "```", "",
    ].join("\n"))
    expect(result.code).toBe(1)
    expect(result.output).toMatch(/bad\.md:8:\d+: error TS18048: 'ctx\.request' is possibly 'undefined'/)
  })

  it("skips a no-check block only when it gives a reason", async () => {
    const withReason = await check("reasoned", "```ts no-check: pseudo-code\nloop {\n```\n")
    expect(withReason.code).toBe(0)
    const without = await check("unreasoned", "# x\n\n```ts no-check\nloop {\n```\n")
    expect(without.code).toBe(1)
    expect(without.output).toContain("unreasoned.md:3: a no-check block needs a reason")
  })
  it("fails a page with a merge's conflict markers in it, naming their lines", async () => {
    const result = await check("conflicted", "# x\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> main\n")
    expect(result.code).toBe(1)
    expect(result.output).toContain("conflicted.md:3: a merge conflict marker: <<<<<<< HEAD")
    expect(result.output).toContain("conflicted.md:7: a merge conflict marker: >>>>>>> main")
  })
})
