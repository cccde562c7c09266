/**
 * A sliding window over the conversation: each model call gets the system prompt,
 * the history's system messages and only the latest messages, with every tool call
 * and its results kept or cut together (providers reject a tool result whose call is
 * missing, and an assistant tool call without its results). A BeforeInference hook:
 * it changes the request of this call only, never the stored history.
 *
 * @since 0.1.0
 */
import { AgentError, HookContext, HookTrigger, HookTriggers, InferenceRequest, Json, type Hook, type Message } from "@hookline/core"
import { UseHook, type AgentBuilder } from "@hookline/agent"
import { isLeft } from "fp-ts/lib/Either.js"
import * as t from "io-ts"
import * as Bounded from "./internal/bounded.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The most conversation messages a call gets (system messages are not counted and
   * always kept). A window never starts inside a tool round: when the newest round
   * alone is longer than this, the call gets that whole round.
   */
  readonly maxMessages: number
  /** Registration priority; default `defaultPriority`. */
  readonly priority?: number | undefined
  /** Registration name; default `defaultName`. */
  readonly name?: string | undefined
}

/**
 * After business hooks that add messages (0–99), before logging (−101 to −199), so
 * a log sees the request as sent (docs/ordering.md).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPriority = -50

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "context:sliding_window"

const OptionsCodec = t.type({
  maxMessages: t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 1, "a whole number >= 1"),
  priority: t.union([t.undefined, t.refinement(t.number, Number.isFinite, "a finite number")]),
  name: t.union([t.undefined, t.refinement(t.string, (s) => s.length > 0, "a non-empty string")]),
})

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

// Checked where the options enter: a typo (`maxMessage`) or a bad limit is an error
// naming the key, never a window that silently keeps everything.
// Each option is read once into a copy, and the copy is what is decoded and kept; a bad
// value is shown as an excerpt (a bigint or a cycle made JSON.stringify throw).
const validate = (options: unknown): Options => {
  const o = Bounded.options("", options, Object.keys(OptionsCodec.props), "an options object { maxMessages }")
  const copy = { maxMessages: o["maxMessages"], priority: o["priority"], name: o["name"] }
  const decoded = OptionsCodec.decode(copy)
  if (isLeft(decoded)) {
    const error = decoded.left[0]
    const key = error?.context[1]?.key ?? ""
    const type = error?.context[error.context.length - 1]?.type.name ?? "a valid value"
    return invalid(key, `expected ${type}, got ${Json.excerpt(error?.value, 60)}`)
  }
  return Object.freeze(decoded.right)
}

/**
 * The messages a call gets: every system message, then the newest conversation
 * messages (at most `maxMessages`, unless the newest tool round alone is longer),
 * starting at a user or assistant message, with no tool result whose call was cut
 * and no tool call whose results are missing. Returns `messages` itself when nothing
 * is cut.
 *
 * @since 0.1.0
 * @category combinators
 */
export const window = (messages: ReadonlyArray<Message>, maxMessages: number): ReadonlyArray<Message> => {
  const conversation: Array<number> = []
  messages.forEach((message, i) => {
    if (message.role !== "system") conversation.push(i)
  })
  if (conversation.length <= maxMessages) return messages
  // The window starts at a round's first message (a user or assistant message, never
  // a tool result): the first such one among the newest `maxMessages`, else the one
  // that opens the newest round.
  let start = conversation.length - maxMessages
  while (start < conversation.length && messages[conversation[start]!]!.role === "tool") start++
  if (start === conversation.length) {
    start = conversation.length - maxMessages
    while (start > 0 && messages[conversation[start]!]!.role === "tool") start--
  }
  const kept = new Set(conversation.slice(start))
  // A history written by hand can still pair badly: drop a result whose call is not
  // in the window, and a tool call (with its results) whose results are not all there.
  const calls = new Map<string, number>()
  const answered = new Set<string>()
  for (const i of kept) {
    const message = messages[i]!
    if (message.role === "assistant") for (const call of message.toolCalls) calls.set(call.id, i)
    if (message.role === "tool") answered.add(message.toolCallId)
  }
  const unanswered = new Set<number>()
  for (const [id, i] of calls) if (!answered.has(id)) unanswered.add(i)
  return messages.filter((message, i) => {
    if (message.role === "system") return true
    if (!kept.has(i) || unanswered.has(i)) return false
    if (message.role !== "tool") return true
    const call = calls.get(message.toolCallId)
    return call !== undefined && !unanswered.has(call)
  })
}

/**
 * The hook: windows the request's messages at BeforeInference; other triggers, and
 * requests short enough, pass unchanged (the same context).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook => {
  const { maxMessages } = validate(options)
  return (ctx) => {
    const request = ctx.request
    if (ctx.trigger !== HookTrigger.BeforeInference || request === undefined || request.messages.length <= maxMessages) return ctx
    const messages = [...request.messages]
    const windowed = window(messages, maxMessages)
    return windowed === messages ? ctx : HookContext.withRequest(ctx, InferenceRequest.make({ ...request, messages: windowed }))
  }
}

/**
 * The capability: `AgentBuilder.make(..., UseSlidingWindow({ maxMessages: 20 }))`.
 * Throws `HooklineError(InvalidConfiguration)` naming a bad option.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseSlidingWindow = (options: Options): AgentBuilder.Capability => {
  const valid = validate(options)
  return UseHook(make(valid), {
    triggers: HookTriggers.of(HookTrigger.BeforeInference),
    priority: valid.priority ?? defaultPriority,
    name: valid.name ?? defaultName,
  })
}
