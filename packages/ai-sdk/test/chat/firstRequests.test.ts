// Two requests for one new chat at the same instant (a double-clicked send, two tabs),
// over real HTTP against a real store (MemoryStore, PGlite): the first to reach the store
// starts the run; the other is not a failed request, it is answered as the repeat rule
// says once the first turn has ended: the same message is a repeat, another message the
// turn after it.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MemoryStore, PgliteStore, RunStore } from "@hookline/store"
import { createAgentUIStream, DefaultChatTransport, type UIMessage } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { toAiSdkAgent } from "@hookline/ai-sdk"
import { deferred, lineUp } from "./support/lineUp.js"
import { makeChat, serve, user } from "./support/refundChat.js"

type Chunk = { readonly type: string; readonly errorText?: string; readonly output?: unknown; readonly finishReason?: string }

/** The chunks of one answer, as useChat's transport parsed them. */
const talk = async (url: string, chatId: string, messages: Array<UIMessage>): Promise<Array<Chunk>> => {
  const stream = await new DefaultChatTransport({ api: url }).sendMessages({ chatId, messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined })
  const chunks: Array<Chunk> = []
  for await (const chunk of stream as unknown as AsyncIterable<Chunk>) chunks.push(chunk)
  return chunks
}
const errors = (chunks: ReadonlyArray<Chunk>) => chunks.filter((c) => c.type === "error").map((c) => c.errorText)
const outputs = (chunks: ReadonlyArray<Chunk>) => chunks.filter((c) => c.type === "tool-output-available").map((c) => c.output)
const userTexts = (state: { readonly context: { readonly messages: { toArray(): ReadonlyArray<{ role: string; content: unknown }> } } } | undefined) =>
  state?.context.messages.toArray().filter((m) => m.role === "user").map((m) => m.content)

type Opened = { readonly store: RunStore.RunStore; readonly close: () => Promise<void> }
const memory: [string, () => Promise<Opened>] = ["MemoryStore", async () => ({ store: MemoryStore.make(), close: async () => {} })]
// The ai 7 leg (AI_SDK_MAJOR=7) runs this file on two Nodes: there MemoryStore only, as
// durable.test.ts stays out of it (PGlite's initdb takes seconds; the store does not
// depend on the ai major).
const stores: Array<[string, () => Promise<Opened>]> = process.env["AI_SDK_MAJOR"] === "7" ? [memory] : [
  memory,
  ["PGlite", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "hookline-first-requests-"))
    const store = await PgliteStore.open({ dataDir })
    return {
      store,
      close: async () => {
        await RunStore.close(store)
        rmSync(dataDir, { recursive: true, force: true })
      },
    }
  }],
]

describe.each(stores)("two first requests for one new chat at once (%s)", (_, open) => {
  let opened: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    opened = await open()
  }, 120_000) // PGlite's first open runs initdb: seconds, tens of them on a loaded machine
  afterAll(async () => {
    await opened.close()
  })

  const race = async (chatId: string, a: UIMessage, b: UIMessage, options: Parameters<typeof makeChat>[0] = {}, answered = () => {}) => {
    const env = makeChat({ store: opened.store, load: lineUp(2), ...options })
    const server = await serve(env.chat.respond)
    try {
      const answers = await Promise.all([a, b].map((m) => talk(server.url, chatId, [m]).finally(answered)))
      return { env, answers }
    } finally {
      await server.close()
    }
  }

  it("the same message twice is one turn: one refund, neither answer an error", async () => {
    const first = user("u1", "refund 40 on order S1")
    const { env, answers } = await race("same-first", first, first)
    expect(answers.map(errors)).toEqual([[], []])
    // The repeat answers with the run's outcome: completed, finish reason "stop".
    expect(answers.map((a) => [a.at(-1)?.type, a.at(-1)?.finishReason])).toEqual([["finish", "stop"], ["finish", "stop"]])
    expect(env.refunds.map((r) => r.order)).toEqual(["S1"])
    const stored = await env.stored("same-first")
    expect(stored?.execution.status).toBe("completed")
    expect(userTexts(stored)).toEqual(["refund 40 on order S1"])
  })

  it("two different messages are two turns, in the order they reached the store: nothing lost, neither an error", async () => {
    const { env, answers } = await race("two-first", user("u1", "refund 40 on order T1"), user("u2", "refund 30 on order T2"))
    expect(answers.map(errors)).toEqual([[], []])
    // Each answer shows its own turn's refund.
    expect(answers.map(outputs)).toEqual([[{ refunded: 40, order: "T1" }], [{ refunded: 30, order: "T2" }]])
    expect(env.refunds.map((r) => r.order).sort()).toEqual(["T1", "T2"])
    const stored = await env.stored("two-first")
    expect(stored?.execution.status).toBe("completed")
    expect(userTexts(stored)?.slice().sort()).toEqual(["refund 30 on order T2", "refund 40 on order T1"])
    expect(stored?.context.messages.toArray().map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"])
  })

  it("the second waits while the first turn still runs, then is the turn after it", async () => {
    // The winner's refund is held until the loser has read the chat again (the third load),
    // or an answer ended (the loser gave up: the test then fails on what it answered).
    const hold = deferred()
    const { env, answers } = await race("held-first", user("u1", "refund 40 on order H1"), user("u2", "refund 30 on order H2"), {
      hold: () => hold.promise,
      load: (stored) => {
        const lined = lineUp(2)(stored)
        let calls = 0
        return (id) => {
          if (++calls === 3) hold.resolve()
          return lined(id)
        }
      },
    }, hold.resolve)
    expect(answers.map(errors)).toEqual([[], []])
    expect(env.refunds.map((r) => r.order).sort()).toEqual(["H1", "H2"])
    expect(userTexts(await env.stored("held-first"))).toHaveLength(2)
  })
})

describe("a request that finds its chat's turn still running", () => {
  /** A useChat request as its default transport sends it, with `fetch` itself: the status, headers and body as they come. */
  const post = (url: string, chatId: string, messages: Array<UIMessage>) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ id: chatId, messages, trigger: "submit-message" }) })

  it("is refused with a 409 naming ChatBusy and the chat once busyTimeout has passed; the running turn and the store are untouched", async () => {
    const hold = deferred()
    const env = makeChat({ load: lineUp(2), hold: () => hold.promise, busyTimeout: 0 })
    const server = await serve(env.chat.respond)
    try {
      const a = post(server.url, "busy", [user("u1", "refund 40 on order B1")])
      const b = post(server.url, "busy", [user("u2", "refund 30 on order B2")])
      // The one refused answers first (its headers: the held turn has sent its own); then the held turn goes on.
      const refused = await Promise.race([a, b])
      expect(refused.status).toBe(409)
      expect(refused.headers.get("content-type")).toMatch(/^application\/json/)
      // No Retry-After: when the other turn ends is not known here (docs/decisions.md).
      expect(refused.headers.get("retry-after")).toBeNull()
      const body = await refused.json() as { readonly error: { readonly _tag: string; readonly chatId: string; readonly message: string } }
      expect(body).toEqual({ error: { _tag: "ChatBusy", chatId: "busy", message: expect.stringMatching(/another request is answering chat busy/) } })
      hold.resolve()
      const answered = (await Promise.all([a, b])).find((r) => r !== refused) as Response
      expect(answered.status).toBe(200)
      expect(await answered.text()).toContain("tool-output-available")
      expect(env.refunds).toHaveLength(1)
      expect(userTexts(await env.stored("busy"))).toHaveLength(1)
    } finally {
      hold.resolve()
      await server.close()
    }
  })

  it("shows useChat's transport an error naming ChatBusy (it throws on a non-2xx answer, with the body as the message)", async () => {
    const hold = deferred()
    const env = makeChat({ load: lineUp(2), hold: () => hold.promise, busyTimeout: 0 })
    const server = await serve(env.chat.respond)
    try {
      const a = talk(server.url, "busy-ui", [user("u1", "refund 40 on order C1")])
      const b = talk(server.url, "busy-ui", [user("u2", "refund 30 on order C2")])
      const [refused] = await Promise.race([a.then(() => [], (e: unknown) => [e]), b.then(() => [], (e: unknown) => [e])])
      hold.resolve()
      const settled = await Promise.allSettled([a, b])
      expect(refused).toBeInstanceOf(Error)
      expect((refused as Error).message).toMatch(/"_tag":"ChatBusy"/)
      expect(settled.filter((r) => r.status === "fulfilled" && errors(r.value).length === 0)).toHaveLength(1)
      expect(env.refunds).toHaveLength(1)
    } finally {
      hold.resolve()
      await server.close()
    }
  })
})

describe("two first calls for one new chat at once, through toAiSdkAgent", () => {
  it("each call is answered with its own turn, neither an error", async () => {
    const env = makeChat({ load: lineUp(2) })
    const agent = toAiSdkAgent(env.agent, { load: env.load })
    const call = async (message: UIMessage) => {
      const stream = await createAgentUIStream({ agent, uiMessages: [message], options: { chatId: "agent-two-first", messageId: message.id } })
      const chunks: Array<Chunk> = []
      for await (const chunk of stream as unknown as AsyncIterable<Chunk>) chunks.push(chunk)
      return chunks
    }
    const answers = await Promise.all([call(user("u1", "refund 40 on order G1")), call(user("u2", "refund 30 on order G2"))])
    expect(answers.map(errors)).toEqual([[], []])
    expect(answers.map(outputs)).toEqual([[{ refunded: 40, order: "G1" }], [{ refunded: 30, order: "G2" }]])
    expect(env.refunds.map((r) => r.order).sort()).toEqual(["G1", "G2"])
  })
})
