// The AI SDK Agent's call decoder over generated untrusted calls, and the class of the
// retried request: any turn, the first included, sent again any number of times runs once.
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import { ChatRequestInvalid, toAiSdkAgent } from "@hookline/ai-sdk"
import { checkCallOptions, decodeAgentTurn } from "../../src/agent/agentTurn.js"
import { makeChat } from "../chat/support/refundChat.js"

const part = fc.oneof(
  fc.record({ type: fc.constant("text"), text: fc.string() }),
  fc.record({ type: fc.constant("tool-approval-response"), approvalId: fc.oneof(fc.string(), fc.jsonValue()), approved: fc.oneof(fc.boolean(), fc.jsonValue()), reason: fc.oneof(fc.string(), fc.jsonValue()) }, { requiredKeys: [] }),
  fc.jsonValue(),
)
const message = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "assistant", "system", "tool"), content: fc.oneof(fc.string(), fc.array(part, { maxLength: 4 }), fc.jsonValue()) }, { requiredKeys: [] }),
  fc.jsonValue(),
)
const options = fc.oneof(
  fc.record({ chatId: fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.string(), fc.jsonValue()), messageId: fc.oneof(fc.string(), fc.jsonValue()), context: fc.jsonValue() }, { requiredKeys: [] }),
  fc.jsonValue(),
)

describe("decodeAgentTurn", () => {
  test.prop([options, fc.oneof(fc.string(), fc.array(message, { maxLength: 5 }), fc.jsonValue())], { numRuns: 300 })(
    "gives a turn or a ChatRequestInvalid naming a field",
    async (given, prompt) => {
      try {
        const turn = await decodeAgentTurn(checkCallOptions(given), prompt)
        if (turn._tag === "UserTurn") {
          expect(turn.text.trim()).not.toBe("")
          expect(turn.messageId.length).toBeGreaterThan(0)
        } else expect(turn.decisions.length).toBeGreaterThan(0)
      } catch (error) {
        expect(error).toBeInstanceOf(ChatRequestInvalid)
        expect((error as ChatRequestInvalid).field).toMatch(/^(options|messages)/)
      }
    },
  )
})

describe("a retried request", () => {
  // Turns of small refunds (no approval), each sent 1 to 3 times in a row, keyed by a message id or not.
  const turns = fc.array(fc.record({ amount: fc.integer({ min: 1, max: 3 }), sends: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 4 })
  test.prop([turns, fc.boolean()], { numRuns: 12 })("runs its turn once, whichever turn it is", async (plan, withIds) => {
    const env = makeChat()
    const agent = toAiSdkAgent(env.agent, { load: env.load })
    const prompt: Array<{ role: "user"; content: string }> = []
    for (const [i, turn] of plan.entries()) {
      prompt.push({ role: "user", content: `refund ${turn.amount} on order A` })
      for (let send = 0; send < turn.sends; send++) {
        await agent.generate({ prompt: [...prompt], options: { chatId: "retry", ...(withIds ? { messageId: `m${i}` } : {}) } })
      }
    }
    // The same words in a later turn are a new turn: one refund per turn, in order.
    expect(env.refunds.map((r) => r.amount)).toEqual(plan.map((t) => t.amount))
    const stored = await env.load("retry")
    expect(stored?.context.messages.toArray().filter((m) => m.role === "user")).toHaveLength(plan.length)
  })
})
