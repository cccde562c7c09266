// The class of "redaction has holes": a secret of every kind the detector knows (card
// numbers as text and as JSON numbers, emails, phones, API keys) placed at any depth up
// to the JSON bound (core's `Json.maxDepth`) in tool results and tool errors, in model
// text (prose, and structured answers: JSON alone or in a ```json fence) and in user
// messages (with `on: userMessages`). After the stack ran the hook: the secret is
// gone, JSON is still JSON of the same shape with the marker in the secret's place,
// and nothing else changed (the expected value is built beside the input, not derived
// from the hook). The laws of hooks hold on the same contexts.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  AgentState,
  HookContext,
  HookStack,
  InferenceRequest,
  InferenceResponse,
  Json,
  Message,
  ToolCall,
  ToolExecution,
  AgentError,
  type HookTrigger,
  type JsonValue,
} from "@hookline/core"
import { PiiRedaction } from "@hookline/middleware"
import { HookLaws } from "@hookline/testing"

interface Secret {
  readonly kind: PiiRedaction.Kind
  /** How it is written in text. */
  readonly text: string
  /** How it is written as a JSON value: a string, or a number for a card number. */
  readonly json: string | number
}

const digits = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max })

// The check digit that makes `body` pass Luhn.
const luhnComplete = (body: ReadonlyArray<number>): Array<number> => {
  for (let d = 0; d <= 9; d++) if (PiiRedaction.luhn([...body, d].join(""))) return [...body, d]
  throw new Error("unreachable")
}

// 13 to 16 digits, no leading zero: a safe integer, so also a JSON number.
const cardDigits = fc.tuple(fc.integer({ min: 1, max: 8 }), digits(11, 14)).map(([first, rest]) => luhnComplete([first, ...rest]))

const cardAsNumber: fc.Arbitrary<Secret> = cardDigits.map((ds) => ({ kind: "card", text: ds.join(""), json: Number(ds.join("")) }))

const cardAsString: fc.Arbitrary<Secret> = fc.tuple(cardDigits, fc.constantFrom(" ", "-")).map(([ds, sep]) => {
  const text = ds.join("").replace(/(\d{4})(?=\d)/g, `$1${sep}`)
  return { kind: "card", text, json: text }
})

const lower = (min: number, max: number) => fc.string({ unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"), minLength: min, maxLength: max })
const alnum = (n: number) => fc.string({ unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"), minLength: n, maxLength: n })

const email: fc.Arbitrary<Secret> = fc.tuple(lower(1, 8), fc.option(lower(1, 5), { nil: undefined }), lower(1, 8), lower(2, 4))
  .map(([user, tag, domain, tld]) => `${user}${tag === undefined ? "" : `.${tag}`}@${domain}.${tld}`)
  .map((text) => ({ kind: "email", text, json: text }))

// At most 12 digits: 13 would also be the shape of a card number.
const phone: fc.Arbitrary<Secret> = fc.tuple(digits(1, 2), digits(3, 3), digits(3, 3), digits(4, 4))
  .map(([cc, a, b, c]) => `+${[1, ...cc.slice(1)].join("")} ${a.join("")} ${b.join("")} ${c.join("")}`)
  .map((text) => ({ kind: "phone", text, json: text }))

const apiKey: fc.Arbitrary<Secret> = fc.oneof(alnum(24).map((k) => `sk-proj-${k}`), alnum(16).map((k) => `AKIA${k.toUpperCase()}`))
  .map((text) => ({ kind: "apiKey", text, json: text }))

const secret: fc.Arbitrary<Secret> = fc.oneof(cardAsNumber, cardAsString, email, phone, apiKey)

// Filler no detector matches: lowercase words, small numbers, and 16-digit numbers
// that fail Luhn (order numbers stay).
const words = fc.array(lower(1, 6), { minLength: 1, maxLength: 4 }).map((ws) => ws.join(" "))
const orderNumber = cardDigits.filter((ds) => ds.length === 16).map((ds) => Number([...ds.slice(0, -1), ((ds.at(-1) as number) + 1) % 10].join("")))
const filler: fc.Arbitrary<JsonValue> = fc.oneof(words, fc.integer({ min: -1000, max: 1000 }), fc.boolean(), fc.constant(null), orderNumber)

/** An input and what the redaction must make of it. */
interface Placed<A> {
  readonly input: A
  readonly expected: A
  readonly secret: Secret
}

// The secret alone (as a JSON value) or in the middle of words.
const leaf: fc.Arbitrary<Placed<JsonValue>> = fc.tuple(secret, fc.option(fc.tuple(words, words), { nil: undefined })).map(([s, around]) => {
  const marker = PiiRedaction.placeholder(s.kind)
  return around === undefined
    ? { input: s.json, expected: marker, secret: s }
    : { input: `${around[0]} ${s.text} ${around[1]}`, expected: `${around[0]} ${marker} ${around[1]}`, secret: s }
})

type Level = { readonly array: true; readonly before: ReadonlyArray<JsonValue>; readonly after: ReadonlyArray<JsonValue> } | {
  readonly array: false
  readonly key: string
  readonly siblings: ReadonlyArray<readonly [string, JsonValue]>
}

const level: fc.Arbitrary<Level> = fc.oneof(
  fc.record({ array: fc.constant(true as const), before: fc.array(filler, { maxLength: 2 }), after: fc.array(filler, { maxLength: 2 }) }),
  fc.record({ array: fc.constant(false as const), key: lower(1, 4).map((k) => `k${k}`), siblings: fc.array(fc.tuple(lower(1, 4).map((k) => `s${k}`), filler), { maxLength: 2 }) }),
)

const wrap = (value: JsonValue, l: Level): JsonValue =>
  l.array ? [...l.before, value, ...l.after] : Object.fromEntries([...l.siblings, [l.key, value]])

// Up to the bound: `Json.maxDepth` levels put the secret inside the deepest container
// JSON may have (at depth maxDepth - 1); often near the old limit of 64, often at the bound.
const levels = fc.oneof(fc.integer({ min: 0, max: Json.maxDepth }), fc.integer({ min: 60, max: 70 }), fc.constant(Json.maxDepth))
  .chain((n) => fc.array(level, { minLength: n, maxLength: n }))

const placedJson: fc.Arbitrary<Placed<JsonValue>> = fc.tuple(leaf, levels).map(([l, ls]) => ({
  input: ls.reduce(wrap, l.input),
  expected: ls.reduce(wrap, l.expected),
  secret: l.secret,
}))

const prose: fc.Arbitrary<Placed<string>> = fc.tuple(secret, words, words).map(([s, a, b]) => ({
  input: `${a} ${s.text} ${b}`,
  expected: `${a} ${PiiRedaction.placeholder(s.kind)} ${b}`,
  secret: s,
}))

// A structured answer: an object (as providers give) around the placed value, as JSON
// text with or without indentation, alone or in a ```json fence.
const structured: fc.Arbitrary<Placed<string>> = fc.tuple(placedJson, fc.constantFrom(0, 2), fc.boolean()).map(([p, indent, fenced]) => {
  const text = (v: JsonValue) => {
    const json = JSON.stringify({ answer: v }, null, indent)
    return fenced ? `\`\`\`json\n${json}\n\`\`\`` : json
  }
  return { input: text(p.input), expected: text(p.expected), secret: p.secret }
})

const text: fc.Arbitrary<Placed<string>> = fc.oneof(prose, structured)

const call = ToolCall.make({ id: "c1", name: "lookup", arguments: {} })
const state = AgentState.make({ id: "r", messages: [Message.user("hello")] })

interface Case {
  readonly ctx: HookContext.HookContext
  readonly expected: HookContext.HookContext
  readonly secret: Secret
}

const toolResult: fc.Arbitrary<Case> = placedJson.map((p) => {
  const at = (output: JsonValue) =>
    HookContext.make({ trigger: "AfterToolUse", state, createdAt: 0, toolCall: call, toolExecution: ToolExecution.success(call, output, 0) })
  return { ctx: at(p.input), expected: at(p.expected), secret: p.secret }
})

// An error message is prose (`tool "lookup" failed: …`), whatever the tool threw.
const toolError: fc.Arbitrary<Case> = prose.map((p) => {
  const at = (message: string) =>
    HookContext.make({
      trigger: "AfterToolUse",
      state,
      createdAt: 0,
      toolCall: call,
      toolExecution: ToolExecution.failure(call, AgentError.toolFailed(call.id, call.name, message), 0),
    })
  return { ctx: at(p.input), expected: at(p.expected), secret: p.secret }
})

const response: fc.Arbitrary<Case> = text.map((p) => {
  const request = InferenceRequest.make({ messages: state.context.messages })
  const at = (t: string) => HookContext.make({ trigger: "AfterInference", state, createdAt: 0, request, response: InferenceResponse.make({ text: t }) })
  return { ctx: at(p.input), expected: at(p.expected), secret: p.secret }
})

// The user's messages of a request, around an assistant answer; the state is not the
// hook's to change.
const userMessages: fc.Arbitrary<Case> = fc.tuple(text, fc.option(words, { nil: undefined }), fc.boolean()).map(([p, other, last]) => {
  const at = (t: string) => {
    const mine = Message.user(t)
    const messages = [Message.user(other ?? "hi"), Message.assistant("noted"), ...(last ? [mine] : [mine, Message.assistant("ok")])]
    return HookContext.make({ trigger: "BeforeInference", state, createdAt: 0, request: InferenceRequest.make({ messages }) })
  }
  return { ctx: at(p.input), expected: at(p.expected), secret: p.secret }
})

const cases: fc.Arbitrary<Case> = fc.oneof(toolResult, toolError, response, userMessages)

const triggers: ReadonlyArray<HookTrigger> = ["AfterToolUse", "AfterInference", "BeforeInference"]
const stack = HookStack.with(HookStack.empty, PiiRedaction.make({ on: PiiRedaction.places }), {
  triggers,
  name: PiiRedaction.name,
  priority: PiiRedaction.priority,
})

// What the model reads of a context: the tool result or error, the response, the request.
const seen = (ctx: HookContext.HookContext): unknown => ({
  execution: ctx.toolExecution,
  response: ctx.response?.text,
  request: ctx.request?.messages.toArray(),
})

const texts = (ctx: HookContext.HookContext): ReadonlyArray<string> => {
  const e = ctx.toolExecution
  return [
    ...(e?.status === "success" ? [typeof e.output === "string" ? e.output : JSON.stringify(e.output)] : []),
    ...(e?.status === "failure" ? [e.error.message] : []),
    ...(ctx.response === undefined ? [] : [ctx.response.text]),
    ...(ctx.trigger === "BeforeInference" ? (ctx.request?.messages.toArray() ?? []).map((m) => m.content) : []),
  ]
}

const parsesTo = (t: string): unknown => {
  const fenced = /^```json\n([\s\S]*)\n```$/.exec(t)
  return JSON.parse(fenced === null ? t : fenced[1] as string)
}

const isJson = (t: string): boolean => {
  try {
    parsesTo(t)
    return true
  } catch {
    return false
  }
}

describe("PiiRedaction", () => {
  describe("make", () => {
    it("leaves no secret at any depth in tool results, model text or user messages, and changes nothing else", { timeout: 300_000 }, () => {
      fc.assert(
        fc.property(cases, ({ ctx, expected, secret: s }) => {
          // Through the dispatcher: a return its check refused would throw HookFailed.
          const out = HookStack.run(stack, ctx)
          expect(seen(out)).toEqual(seen(expected))
          for (const t of texts(out)) expect(t).not.toContain(s.text)
          // JSON text is still JSON, of the expected shape with the marker in place. (A text
          // that only looks so, a whole output redacted to "[REDACTED:email]", is prose.)
          texts(expected).forEach((t, i) => {
            if (/^(```json\n)?[[{]/.test(t) && isJson(t)) expect(parsesTo(texts(out)[i] as string)).toEqual(parsesTo(t))
          })
          expect(out.state).toBe(ctx.state)
        }),
        { numRuns: 300 },
      )
    })

    it("obeys the laws of hooks on the same contexts, idempotent too", { timeout: 300_000 }, () => {
      HookLaws.check(PiiRedaction.make({ on: PiiRedaction.places }), {
        name: PiiRedaction.name,
        triggers,
        idempotent: true,
        contexts: cases.map((c) => c.ctx),
        numRuns: 60,
      })
    })
  })
})
