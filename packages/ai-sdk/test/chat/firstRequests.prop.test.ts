// The class behind "two first requests at once": any number of requests for one new chat
// reaching the store together, each a new message or the same message again (a retry, a
// double click). Every request is answered without an error, every distinct message is
// one turn of the stored conversation (its refund run once), none is lost.
import { fc, test } from "@fast-check/vitest"
import { expect } from "vitest"
import { lineUp } from "./support/lineUp.js"
import { makeChat, user } from "./support/refundChat.js"

type Chunk = { readonly type: string }

const read = async (response: Response): Promise<Array<Chunk>> => {
  const chunks: Array<Chunk> = []
  const text = await response.text()
  for (const line of text.split("\n")) {
    if (line.startsWith("data: ") && line !== "data: [DONE]") chunks.push(JSON.parse(line.slice(6)) as Chunk)
  }
  return chunks
}

test.prop([fc.array(fc.nat({ max: 3 }), { minLength: 2, maxLength: 5 })], { numRuns: 25 })(
  "requests for one new chat at once: each answered, each distinct message one turn",
  async (picks) => {
    const env = makeChat({ load: lineUp(picks.length) })
    const messages = picks.map((n) => user(`m${n}`, `refund ${10 + n} on order P${n}`))
    const answers = await Promise.all(messages.map(async (message) =>
      read(await env.chat.respond(new Request("http://127.0.0.1/api/chat", { method: "POST", body: JSON.stringify({ id: "prop-chat", messages: [message] }) })))
    ))
    expect(answers.filter((chunks) => chunks.some((c) => c.type === "error"))).toEqual([])
    const distinct = [...new Set(picks)].map((n) => `P${n}`).sort()
    expect(env.refunds.map((r) => r.order).sort()).toEqual(distinct)
    const stored = await env.stored("prop-chat")
    expect(stored?.execution.status).toBe("completed")
    const asked = stored?.context.messages.toArray().filter((m) => m.role === "user").map((m) => m.content)
    expect(asked?.length).toBe(distinct.length)
  },
)
