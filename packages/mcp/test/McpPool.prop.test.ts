// The pool's two pure decisions, generated: which servers share a process (the launch
// key: equal exactly when the whole launch spec is, however its records were built), and
// how long a server waits before it is started again (the backoff).
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { McpServer } from "@hookline/mcp"
import * as Backoff from "../src/internal/Backoff.js"
import * as LaunchKey from "../src/internal/LaunchKey.js"

const word = fc.stringMatching(/^[a-zA-Z0-9_-]{1,8}$/)
const record: fc.Arbitrary<Record<string, string>> = fc.dictionary(fc.constantFrom("A", "B", "TOKEN", "PATH", "HOME", "x"), fc.constantFrom("", "1", "2", "secret"), { maxKeys: 4 })
const stdio = fc.record({
  name: fc.constantFrom("a", "b"),
  command: fc.constantFrom("node", "npx"),
  args: fc.array(fc.constantFrom("-y", "server", ""), { maxLength: 3 }),
  env: fc.option(record, { nil: undefined }),
  cwd: fc.option(fc.constantFrom("/tmp", "/"), { nil: undefined }),
})
const http = fc.record({
  name: fc.constantFrom("a", "b"),
  url: fc.constantFrom("http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp"),
  headers: fc.option(record, { nil: undefined }),
})
const spec = fc.oneof(stdio.map((s) => ({ _tag: "Stdio" as const, ...s })), http.map((s) => ({ _tag: "Http" as const, ...s })))
type Spec = typeof spec extends fc.Arbitrary<infer A> ? A : never

const serverOf = (s: Spec): McpServer =>
  s._tag === "Stdio"
    ? McpServer.stdio({ name: s.name, command: s.command, args: s.args, env: s.env, cwd: s.cwd })
    : McpServer.http({ name: s.name, url: s.url, headers: s.headers })

// What the child would get, or what the server is sent: the spec a key must tell apart.
const effective = (s: Spec): unknown =>
  s._tag === "Stdio"
    ? [s._tag, s.name, s.command, s.args, s.cwd ?? null, Object.entries({ ...McpServer.defaultEnv(), ...s.env }).sort()]
    : [s._tag, s.name, s.url, Object.entries(s.headers ?? {}).sort()]

const reversed = (r: Record<string, string> | undefined) => (r === undefined ? undefined : Object.fromEntries(Object.entries(r).reverse()))

describe("LaunchKey", () => {
  describe("of", () => {
    it("is equal for two servers exactly when their whole launch specs are equal", () => {
      fc.assert(fc.property(spec, spec, (a, b) => {
        expect(LaunchKey.of(serverOf(a)) === LaunchKey.of(serverOf(b))).toBe(JSON.stringify(effective(a)) === JSON.stringify(effective(b)))
      }), { numRuns: 2_000 })
    })

    it("does not depend on the order a record was built in", () => {
      fc.assert(fc.property(spec, (s) => {
        const flipped: Spec = s._tag === "Stdio" ? { ...s, env: reversed(s.env) } : { ...s, headers: reversed(s.headers) }
        expect(LaunchKey.of(serverOf(flipped))).toBe(LaunchKey.of(serverOf(s)))
      }))
    })
  })
})

describe("Backoff", () => {
  describe("delayMs", () => {
    const settings = fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: 100_000 }))
      .map(([initialMs, extra]) => ({ initialMs, maxMs: initialMs + extra }))

    it("waits nothing before a first start, the initial wait after one failure, never more than the max", () => {
      fc.assert(fc.property(settings, fc.integer({ min: 1, max: 10_000 }), (s, failures) => {
        expect(Backoff.delayMs(0, s)).toBe(0)
        expect(Backoff.delayMs(1, s)).toBe(s.initialMs)
        const delay = Backoff.delayMs(failures, s)
        expect(delay >= s.initialMs && delay <= s.maxMs).toBe(true)
      }))
    })

    it("doubles with each failure in a row until it reaches the max, and never shrinks", () => {
      fc.assert(fc.property(settings, fc.integer({ min: 1, max: 100 }), (s, failures) => {
        const now = Backoff.delayMs(failures, s)
        const next = Backoff.delayMs(failures + 1, s)
        expect(next).toBe(Math.min(s.maxMs, now * 2))
        expect(next >= now).toBe(true)
      }))
    })
  })
})
