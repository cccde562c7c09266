// Runs every ```ts block of this package's README and compares what it prints with the
// comment after each `console.log(...)`: the README's examples run as written.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { inspect } from "node:util"
import { afterAll, describe, expect, it, vi } from "vitest"

const dir = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(join(dir, "README.md"), "utf8")
// Written inside the package so that its imports resolve as the package's own.
const out = join(dir, "test", ".readme")

interface Block {
  readonly heading: string
  readonly code: string
  /** What each console.log prints, from its comment. */
  readonly expected: ReadonlyArray<string>
}

const blocks: ReadonlyArray<Block> = (() => {
  const found: Array<Block> = []
  let heading = "intro"
  for (const [, title, code] of readme.matchAll(/(?:^#+ (.+)$)|^```ts\n([\s\S]*?)\n```$/gm)) {
    if (title !== undefined) heading = title
    if (code === undefined) continue
    const expected = [...code.matchAll(/^console\.log\(.*\) \/\/ (.+)$/gm)].map((m) => m[1] ?? "")
    found.push({ heading, code, expected })
  }
  return found
})()

// How a logged value reads in a comment: a string as JSON, anything else as Node prints it.
const show = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : inspect(value, { breakLength: Infinity }))

afterAll(() => rmSync(out, { recursive: true, force: true }))

describe("README", () => {
  it("has an example for each export", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(13)
  })

  it.each(blocks.map((b, i) => [`${i} ${b.heading}`, b, i] as const))("runs %s and prints what its comments say", async (_, block, i) => {
    mkdirSync(out, { recursive: true })
    const file = join(out, `block${i}.ts`)
    writeFileSync(file, `${block.code}\nexport {}\n`)
    const printed: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => void printed.push(args.map(show).join(" ")))
    try {
      await import(/* @vite-ignore */ file)
    } finally {
      log.mockRestore()
    }
    expect(printed).toEqual(block.expected)
  }, 60_000)
})
