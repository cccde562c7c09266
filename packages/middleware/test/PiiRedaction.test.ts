import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseLoopOptions, UseTools } from "@hookline/agent"
import { Output, PiiRedaction, UsePiiRedaction } from "@hookline/middleware"
import { HookLaws, ScriptedDriver } from "@hookline/testing"
import {
  AgentState,
  Codecs,
  HookContext,
  InferenceRequest,
  InferenceResponse,
  Json,
  Message,
  ToolCall,
  ToolExecution,
  type HookTrigger,
  type JsonValue,
} from "@hookline/core"

const lookup = Tool.make({
  name: "lookup",
  parameters: t.type({}),
  execute: () => ({ name: "Ada", email: "ada@example.com", phone: "+44 20 7946 0958", notes: ["card 4111 1111 1111 1111"] }),
})

const everything = (state: AgentState.AgentState) => JSON.stringify([...state.context.messages])

// A value `levels` arrays and objects deep (the root is level 1) around `leaf`.
const nested = (levels: number, leaf: JsonValue): JsonValue => {
  let value = leaf
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

const call = ToolCall.make({ id: "c1", name: "lookup", arguments: {} })
const state = AgentState.make({ id: "r", messages: [Message.user("who?")] })
const afterTool = (output: JsonValue) =>
  HookContext.make({ trigger: "AfterToolUse", state, createdAt: 0, toolCall: call, toolExecution: ToolExecution.success(call, output, 0) })
const afterInference = (text: string) =>
  HookContext.make({ trigger: "AfterInference", state, createdAt: 0, request: InferenceRequest.make({ messages: state.context.messages }), response: InferenceResponse.make({ text }) })
const beforeInference = (messages: ReadonlyArray<Message.Message>) =>
  HookContext.make({ trigger: "BeforeInference", state, createdAt: 0, request: InferenceRequest.make({ messages }) })
const outputOf = (ctx: HookContext.HookContext) => (ctx.toolExecution?.status === "success" ? ctx.toolExecution.output : undefined)
const card = PiiRedaction.placeholder("card")
const email = PiiRedaction.placeholder("email")

describe("PiiRedaction", () => {
  describe("redact", () => {
    it.each([
      ["mail ada.lovelace+x@mail.example.co.uk now", "mail [REDACTED:email] now"],
      ["call +1 (415) 555-0134 or 020 7946 0958", "call [REDACTED:phone] or [REDACTED:phone]"],
      ["card 4111-1111-1111-1111 ok", "card [REDACTED:card] ok"],
      ["order 4111 1111 1111 1112 stays (no Luhn)", "order 4111 1111 1111 1112 stays (no Luhn)"],
      ["key sk-proj-abcdefghijklmnopqrstuvwx1234", "key [REDACTED:apiKey]"],
      ["aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED:apiKey]"],
      ["gh ghp_abcdefghijklmnopqrstuvwxyz0123456789", "gh [REDACTED:apiKey]"],
      ["Authorization: Bearer abcdefghijklmnopqrstuvwxyz.123", "Authorization: [REDACTED:apiKey]"],
      ["version 1.2.3, on 2024-01-05, 42 items", "version 1.2.3, on 2024-01-05, 42 items"],
    ])("%s", (input, expected) => {
      expect(PiiRedaction.redact(input)).toBe(expected)
      expect(PiiRedaction.redact(expected)).toBe(expected)
    })

    it("keeps JSON text JSON, and redacts JSON values the same way", () => {
      expect(PiiRedaction.redact('{"card": 4111111111111111, "to": ["ada@example.com"]}')).toBe(`{"card": "${card}", "to": ["${email}"]}`)
      const value = { card: 4111111111111111, to: ["ada@example.com"], n: 4111111111111112 }
      expect(PiiRedaction.redactJson(value)).toEqual({ card, to: [email], n: 4111111111111112 })
      expect(PiiRedaction.redactJson(value, ["email"])).toEqual({ card: 4111111111111111, to: [email], n: 4111111111111112 })
      const clean = { to: ["nobody"] }
      expect(PiiRedaction.redactJson(clean)).toBe(clean)
    })

    it("checks card numbers with Luhn", () => {
      expect(PiiRedaction.luhn("4111111111111111")).toBe(true)
      expect(PiiRedaction.luhn("4111111111111112")).toBe(false)
      expect(PiiRedaction.luhn("79927398713")).toBe(true)
    })
  })

  describe("use", () => {
    it("redacts tool results before the model reads them and responses before they are committed", async () => {
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "lookup", arguments: {} }]),
        ScriptedDriver.text("Write to ada@example.com, key sk-ant-abcdefghijklmnopqrstuvwxyz"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([lookup]), UsePiiRedaction()).run("who?")
      const seenByModel = JSON.stringify([...(driver.requests[1]?.messages ?? [])])
      expect(seenByModel).not.toContain("ada@example.com")
      expect(seenByModel).not.toContain("4111")
      expect(seenByModel).toContain("[REDACTED:email]")
      expect(seenByModel).toContain("[REDACTED:card]")
      expect(seenByModel).toContain("[REDACTED:phone]")
      expect(everything(final)).not.toContain("ada@example.com")
      expect(final.context.messages.at(-1)?.content).toBe("Write to [REDACTED:email], key [REDACTED:apiKey]")
    })

    it("redacts the model's reasoning too: neither stored in the step nor streamed (issue 25)", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("Done.", { reasoning: "The user is ada@example.com." })])
      const agent = AgentBuilder.make(UseDriver(driver), UsePiiRedaction())
      const events = []
      for await (const event of agent.stream("who?")) events.push(event)
      const ended = events.at(-1)
      const final = ended?._tag === "RunEnded" ? ended.state : undefined
      expect(final?.execution.steps.at(0)?.response?.reasoning).toBe("The user is [REDACTED:email].")
      expect(JSON.stringify(events)).not.toContain("ada@example.com")
    })

    it("keeps streamed text clean with textDeltas auto, not with live", async () => {
      const answer = () => ScriptedDriver.make([ScriptedDriver.text("mail me at bob@example.org", { chunks: ["mail me at bob@", "example.org"] })])
      const streamed = async (live: boolean) => {
        const agent = AgentBuilder.make(UseDriver(answer()), UsePiiRedaction(), ...(live ? [UseLoopOptions({ textDeltas: "live" })] : []))
        let text = ""
        for await (const event of agent.stream("hi")) if (event._tag === "TextDelta") text += event.text
        return text
      }
      expect(await streamed(false)).toBe("mail me at [REDACTED:email]")
      expect(await streamed(true)).toBe("mail me at bob@example.org")
    })

    it("redacts a tool result nested as deep as a tool may answer", async () => {
      const deep = Tool.make({ name: "deep", parameters: t.type({}), execute: () => nested(Json.maxDepth, "mail ada@example.com") })
      const driver = ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "deep", arguments: {} }]), ScriptedDriver.text("done")])
      const final = await AgentBuilder.make(UseDriver(driver), UseTools([deep]), UsePiiRedaction()).run("go")
      expect(final.execution.status).toBe("completed")
      expect(JSON.stringify([...(driver.requests[1]?.messages ?? [])])).not.toContain("ada@example.com")
      expect(everything(final)).toContain(email)
    })

    it("keeps a structured answer with a numeric card number valid: the run decodes it with the marker", async () => {
      const answer = Output.make(t.type({ name: t.string, card: t.union([t.number, t.string]) }))
      const driver = ScriptedDriver.make([ScriptedDriver.text('{"name": "Ada", "card": 4111111111111111}')])
      const final = await AgentBuilder.make(UseDriver(driver), UsePiiRedaction(), answer.use).run("card?")
      expect(answer.error(final)).toBeUndefined()
      expect(await answer.value(final)).toEqual({ name: "Ada", card })
      expect(everything(final)).not.toContain("4111111111111111")
    })

    it("redacts what the user wrote before the model reads it with on: userMessages", async () => {
      const run = async (options: PiiRedaction.Options | undefined) => {
        const driver = ScriptedDriver.make([ScriptedDriver.text("noted")])
        const final = await AgentBuilder.make(UseDriver(driver), UsePiiRedaction(options)).run("I am ada@example.com, card 4111 1111 1111 1111")
        return { seen: JSON.stringify([...(driver.requests[0]?.messages ?? [])]), final }
      }
      const on = await run({ on: ["toolResults", "responses", "userMessages"] })
      expect(on.seen).toContain(`I am ${email}, card ${card}`)
      expect(on.seen).not.toContain("ada@example.com")
      // The state is the application's record of the user's words.
      expect(everything(on.final)).toContain("ada@example.com")
      expect((await run(undefined)).seen).toContain("ada@example.com")
    })

    it("refuses bad options", () => {
      expect(() => UsePiiRedaction({ kinds: ["ssn" as never] })).toThrow(/options\.kinds\[0\]/)
      expect(() => UsePiiRedaction({ on: ["input" as never] })).toThrow(/options\.on\[0\]: expected one of "toolResults", "responses", "userMessages"/)
      expect(() => UsePiiRedaction({ on: [] })).toThrow(/options\.on: expected at least one/)
    })
  })

  describe("make", () => {
    it("redacts tool output nested as deep as JSON may be (Json.maxDepth levels)", () => {
      const hook = PiiRedaction.make()
      for (const levels of [65, 100, Json.maxDepth]) {
        const output = nested(levels, "mail ada@example.com")
        expect(Codecs.JsonValue.is(output)).toBe(true)
        expect(outputOf(hook(afterTool(output)))).toEqual(nested(levels, `mail ${email}`))
      }
    })

    it("redacts a card number written as a JSON number in a tool result", () => {
      const hook = PiiRedaction.make()
      expect(outputOf(hook(afterTool({ card: 4111111111111111, order: 4111111111111112, n: 42 })))).toEqual({ card, order: 4111111111111112, n: 42 })
      expect(outputOf(hook(afterTool(4111111111111111)))).toBe(card)
      expect(outputOf(PiiRedaction.make({ kinds: ["email"] })(afterTool({ card: 4111111111111111 })))).toEqual({ card: 4111111111111111 })
    })

    it("keeps a structured answer valid JSON: a secret number or string becomes the marker as a JSON string", () => {
      const hook = PiiRedaction.make()
      const text = '{ "name": "Ada", "card": 4111111111111111, "mail": "ada@example.com",\n  "order": 4111111111111112, "cards": [4111 , "4111 1111 1111 1111"] }'
      const redacted = hook(afterInference(text)).response?.text ?? ""
      expect(JSON.parse(redacted)).toEqual({ name: "Ada", card, mail: email, order: 4111111111111112, cards: [4111, card] })
      // Nothing else of the text changes: its spacing stays.
      expect(redacted).toBe(`{ "name": "Ada", "card": "${card}", "mail": "${email}",\n  "order": 4111111111111112, "cards": [4111 , "${card}"] }`)
      const fenced = "```json\n[4111111111111111]\n```"
      expect(hook(afterInference(fenced)).response?.text).toBe(`\`\`\`json\n["${card}"]\n\`\`\``)
      // Prose stays prose.
      expect(hook(afterInference("card 4111111111111111")).response?.text).toBe(`card ${card}`)
    })

    it("redacts the user's messages the model reads when asked to, at BeforeInference", () => {
      const messages = [Message.user("I am ada@example.com"), Message.assistant("Hello"), Message.user('{"card": 4111111111111111}')]
      const off = PiiRedaction.make()(beforeInference(messages))
      expect(off.request?.messages.toArray()).toEqual(messages)
      const on = PiiRedaction.make({ on: ["userMessages"] })(beforeInference(messages))
      expect(on.request?.messages.toArray()).toEqual([Message.user(`I am ${email}`), Message.assistant("Hello"), Message.user(`{"card": "${card}"}`)])
      // The request is the model's: the state keeps what the user wrote.
      expect(on.state).toBe(off.state)
    })

    it("obeys the laws of hooks and is idempotent", { timeout: 120_000 }, () => {
      HookLaws.check(PiiRedaction.make({ on: PiiRedaction.places }), {
        name: PiiRedaction.name,
        triggers: ["AfterToolUse", "AfterInference", "BeforeInference"],
        idempotent: true,
      })
    })
  })
})
