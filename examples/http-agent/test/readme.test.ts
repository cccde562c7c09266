// The README's example must run as written: it is extracted, run, and its result checked.
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import type { AgentState } from "@hookline/core"

const readme = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8")
const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
const generated = fileURLToPath(new URL("./readme.generated.ts", import.meta.url))

describe("README example", () => {
  afterAll(() => rmSync(generated, { force: true }))

  it("runs as written and answers 4", async () => {
    expect(example).toContain("AgentBuilder.make(")
    writeFileSync(generated, `${example}\nexport { final }\n`)
    const { final } = (await import(generated)) as { final: AgentState }
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.last()?.content).toBe("4")
  })
})
