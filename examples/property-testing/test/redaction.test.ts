// The redaction hook, property-tested with @hookline/testing: the hook laws, then its
// own promise (no secret survives) on generated tool results that hold secrets.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { HookContext, ToolCall, ToolExecution, type JsonValue } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"
import { containsSecret, redactJson, redactSecrets, redactSecretsOptions } from "../src/redaction.js"

// Secrets, and texts with secrets planted anywhere in them.
const secret = fc.stringMatching(/^sk-[A-Za-z0-9-]{1,16}$/)
const leaky = fc.oneof(fc.string({ maxLength: 8 }), fc.tuple(fc.string({ maxLength: 8 }), secret, fc.string({ maxLength: 8 })).map((p) => p.join("")))
// Tool results (any JSON) whose strings may hold secrets.
const leakyOutput = Arbitraries.json({ strings: leaky, maxDepth: 3 })
const afterToolUse = Arbitraries.hookContext("AfterToolUse", { toolOutput: leakyOutput })

describe("redactSecrets", () => {
  it("obeys the hook laws, and is idempotent", () => {
    HookLaws.check(redactSecrets, { ...redactSecretsOptions, idempotent: true, arbitraries: { toolOutput: leakyOutput } })
  })

  it("leaves no secret in a tool's output", () => {
    fc.assert(
      fc.property(afterToolUse, (ctx) => {
        const out = redactSecrets(ctx)
        if (out.toolExecution?.status === "success") expect(containsSecret(JSON.stringify(out.toolExecution.output))).toBe(false)
      }),
    )
  })

  it("removes each planted secret, wherever it sits", () => {
    fc.assert(
      fc.property(fc.string(), secret, fc.string(), (before, key, after) => {
        const output: JsonValue = { text: `${before}${key}${after}`, list: [key], [key]: 1 }
        const call = ToolCall.make({ id: "call_1", name: "search" })
        const ctx = HookContext.make({ trigger: "AfterToolUse", state: fc.sample(Arbitraries.agentState(), 1)[0]!, createdAt: 0, toolCall: call, toolExecution: ToolExecution.success(call, output, 0) })
        expect(JSON.stringify(redactSecrets(ctx).toolExecution)).not.toContain(key)
      }),
    )
  })

  it("returns the context itself when there is nothing to redact", () => {
    const clean = Arbitraries.hookContext("AfterToolUse", { toolOutput: Arbitraries.json({ strings: fc.string().filter((s) => !s.includes("sk-")) }) })
    fc.assert(fc.property(clean, (ctx) => redactSecrets(ctx) === ctx))
  })

  it("changes nothing but the secrets", () => {
    fc.assert(
      fc.property(leakyOutput, (output) => {
        const strip = (v: JsonValue) => JSON.stringify(v).replace(/sk-[A-Za-z0-9-]+/g, "[redacted]")
        expect(JSON.stringify(redactJson(output))).toBe(strip(output))
      }),
    )
  })
})
