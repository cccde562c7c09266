// The request decoder over generated untrusted bodies: whatever JSON comes, it gives a
// turn or a ChatRequestInvalid naming a field, never another error.
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { ChatRequestInvalid, decodeTurn } from "@hookline/ai-sdk"

const part = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string() }),
  fc.record({ type: fc.constantFrom("tool-refund", "dynamic-tool"), toolCallId: fc.string(), state: fc.constantFrom("approval-responded", "approval-requested", "output-available"), input: fc.jsonValue(), approval: fc.record({ id: fc.string(), approved: fc.oneof(fc.boolean(), fc.jsonValue()) }, { requiredKeys: [] }) }, { requiredKeys: [] }),
  fc.jsonValue(),
)
const message = fc.oneof(
  fc.record({ id: fc.string(), role: fc.constantFrom("user", "assistant", "system", "tool"), parts: fc.array(part, { maxLength: 4 }) }, { requiredKeys: [] }),
  fc.jsonValue(),
)
const body = fc.oneof(
  fc.record({ id: fc.oneof(fc.string(), fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.jsonValue()), messages: fc.oneof(fc.array(message, { maxLength: 5 }), fc.jsonValue()), trigger: fc.string() }, { requiredKeys: [] }),
  fc.jsonValue(),
)

describe("decodeTurn", () => {
  test.prop([body], { numRuns: 300 })("gives a turn or a ChatRequestInvalid naming a field", async (input) => {
    try {
      const turn = await decodeTurn(input)
      expect(["UserTurn", "Decisions"]).toContain(turn._tag)
      if (turn._tag === "UserTurn") expect(turn.text.trim()).not.toBe("")
      else expect(turn.decisions.length).toBeGreaterThan(0)
    } catch (error) {
      expect(error).toBeInstanceOf(ChatRequestInvalid)
      expect((error as ChatRequestInvalid).field).toMatch(/^(body|id|messages)/)
    }
  })
})
