/**
 * Redacts personal data and secrets: email addresses, phone numbers, card numbers
 * (only digit runs that pass the Luhn check, so order numbers stay; a JSON number whose
 * digits are one too) and API-key shapes (OpenAI, Anthropic, AWS, GitHub, Slack,
 * Google keys; bearer tokens). It rewrites tool results and tool errors (AfterToolUse)
 * before the model reads them, at any depth JSON may have (`Json.maxDepth`), and the
 * text of model responses (AfterInference) before it is committed to the state. JSON
 * stays JSON: a structured answer (a JSON object or array, alone or in one ```json
 * fence) is redacted value by value, a secret number or string becoming the marker as
 * a JSON string. With `on: [..., "userMessages"]` it also redacts the user messages of
 * each model request (BeforeInference), not the state. Tool-call arguments are left
 * alone: the model may pass an address on to a tool on purpose. Streamed text is clean
 * too when the loop's `textDeltas` is `"auto"` (the default: a stack with an
 * AfterInference hook holds the text back until the hooks ran) or `"checked"`; with
 * `"live"` the stream shows the text before any hook saw it (docs/loop.md).
 *
 * @since 0.1.0
 */
import { UseHook, type AgentBuilder } from "@hookline/agent"
import { HookContext, HookTrigger, HookTriggers, InferenceResponse, Message, type Hook, type JsonValue } from "@hookline/core"
import * as O from "./internal/builtinOptions.js"
import { redactText, redactValue, type Scalars } from "./internal/jsonRedaction.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Kind = "email" | "phone" | "card" | "apiKey"

/** @since 0.1.0 @category constants */
export const kinds: ReadonlyArray<Kind> = Object.freeze(["email", "phone", "card", "apiKey"])

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** What to redact; default all four kinds. */
  readonly kinds?: ReadonlyArray<Kind> | undefined
  /**
   * Where: tool results and tool errors (AfterToolUse), model responses
   * (AfterInference), the user messages of each model request (BeforeInference).
   * Default `["toolResults", "responses"]`: the user's own words reach the model as
   * written unless `"userMessages"` is listed.
   */
  readonly on?: ReadonlyArray<Place> | undefined
}

/**
 * A place the redaction applies to.
 *
 * @since 0.1.0
 * @category models
 */
export type Place = "toolResults" | "responses" | "userMessages"

/** Every place; the default is the first two. @since 0.1.0 @category constants */
export const places: ReadonlyArray<Place> = Object.freeze(["toolResults", "responses", "userMessages"])

const defaultPlaces: ReadonlyArray<Place> = ["toolResults", "responses"]

/** @since 0.1.0 @category constants */
export const name = "privacy:pii_redaction"

/** Low on every trigger it runs on: it sees what other rewrites (and request edits) left. @since 0.1.0 @category constants */
export const priority = -100

/** What a redacted value becomes: `[REDACTED:email]`. @since 0.1.0 @category constants */
export const placeholder = (kind: Kind): string => `[REDACTED:${kind}]`

/** Whether a run of digits passes the Luhn check (card numbers do). @since 0.1.0 @category predicates */
export const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return digits.length > 0 && sum % 10 === 0
}

// Keys first (their shapes may hold digit runs), then cards (before phones, which a
// spaced card number also looks like), then emails and phones.
const patterns: ReadonlyArray<readonly [Kind, RegExp]> = [
  ["apiKey", /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35})\b|\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*/g],
  ["card", /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g],
  ["email", /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g],
  ["phone", /(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{2,4}(?:[\s.-]\d{2,5}){0,2}(?![\w])/g],
]

// 2024-01-05, 05.01.2024: dates look like phone numbers with separators.
const datePattern = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{4})$/

const redactPlain = (enabled: ReadonlySet<Kind>) => (text: string): string => {
  let out = text
  for (const [kind, pattern] of patterns) {
    if (!enabled.has(kind)) continue
    out = out.replace(pattern, (match) => {
      if (kind === "card" && !luhn(match.replace(/[ -]/g, ""))) return match
      // A phone needs 7 to 15 digits (E.164); fewer is a date or a version number.
      if (kind === "phone") {
        const digits = match.replace(/\D/g, "").length
        if (digits < 7 || digits > 15 || datePattern.test(match)) return match
      }
      return placeholder(kind)
    })
  }
  return out
}

// A JSON number is a card number when it is written as 13 to 19 digits that pass Luhn,
// as a digit run in text is.
const cardNumber = /^\d{13,19}$/

const scalarsOf = (enabled: ReadonlySet<Kind>): Scalars => {
  const card = placeholder("card")
  return {
    text: redactPlain(enabled),
    number: enabled.has("card") ? (lexeme) => (cardNumber.test(lexeme) && luhn(lexeme) ? card : undefined) : () => undefined,
  }
}

/**
 * The text with every enabled kind replaced by its placeholder. Idempotent. A JSON
 * object or array (alone or in one ```json fence) stays valid JSON: a secret string
 * or number becomes the placeholder as a JSON string; keys are kept.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redact = (text: string, only: ReadonlyArray<Kind> = kinds): string => redactText(text, scalarsOf(new Set(only)))

/**
 * The JSON value with every string redacted and every card number written as a number
 * replaced by the placeholder string, keys kept, down to `Json.maxDepth`; the same
 * reference when nothing changed. Idempotent.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redactJson = (value: JsonValue, only: ReadonlyArray<Kind> = kinds): JsonValue => redactValue(value, scalarsOf(new Set(only)))

const check = (options: unknown) => {
  const o = O.record("options", options, ["kinds", "on"])
  const enabled = o["kinds"] === undefined
    ? kinds
    : O.names("options.kinds", o["kinds"]).map((k, i) => O.oneOf(`options.kinds[${i}]`, k, kinds))
  const on = o["on"] === undefined
    ? defaultPlaces
    : O.names("options.on", o["on"]).map((k, i) => O.oneOf(`options.on[${i}]`, k, places))
  // A redaction that applies nowhere is a mistake, not a configuration.
  if (on.length === 0) O.invalid("options.on", `expected at least one of ${places.map((p) => JSON.stringify(p)).join(", ")}, got []`)
  return { enabled: new Set(enabled), on: new Set(on) }
}

/**
 * The hook, for AfterToolUse, AfterInference and (with `"userMessages"`)
 * BeforeInference. Throws `InvalidConfiguration` for bad options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Hook => hookOf(check(options))

const hookOf = ({ enabled, on }: ReturnType<typeof check>): Hook => {
  const s = scalarsOf(enabled)
  const f = (text: string) => redactText(text, s)
  return (ctx) => {
    if (ctx.trigger === HookTrigger.AfterToolUse && on.has("toolResults")) {
      const execution = ctx.toolExecution
      if (execution === undefined || execution.status === "blocked") return ctx
      if (execution.status === "failure") {
        const message = f(execution.error.message)
        return message === execution.error.message
          ? ctx
          : HookContext.withToolExecution(ctx, { ...execution, error: { ...execution.error, message } })
      }
      const output = redactValue(execution.output, s)
      return output === execution.output ? ctx : HookContext.withToolResult(ctx, output)
    }
    if (ctx.trigger === HookTrigger.AfterInference && on.has("responses")) {
      const response = ctx.response
      if (response === undefined) return ctx
      const text = f(response.text)
      // The model's reasoning is kept in the step and streamed as the text is: redacted alike.
      const reasoning = response.reasoning === undefined ? undefined : f(response.reasoning)
      return text === response.text && reasoning === response.reasoning
        ? ctx
        : HookContext.withResponse(ctx, InferenceResponse.make({ ...response, text, reasoning }))
    }
    if (ctx.trigger === HookTrigger.BeforeInference && on.has("userMessages")) {
      const request = ctx.request
      if (request === undefined) return ctx
      // The request only: what the model reads. The state keeps what the user wrote.
      let messages: Array<Message.Message> | undefined
      let i = 0
      for (const message of request.messages) {
        if (message.role === "user") {
          const content = f(message.content)
          if (content !== message.content) (messages ??= request.messages.toArray().slice())[i] = Message.user(content)
        }
        i++
      }
      return messages === undefined ? ctx : HookContext.withRequest(ctx, { ...request, messages })
    }
    return ctx
  }
}

const triggerOf: Readonly<Record<Place, HookTrigger.HookTrigger>> = {
  toolResults: HookTrigger.AfterToolUse,
  responses: HookTrigger.AfterInference,
  userMessages: HookTrigger.BeforeInference,
}

/**
 * As a capability: `UseHook(make(options), { triggers: the places' triggers (default
 * AfterToolUse and AfterInference), priority: -100, name: "privacy:pii_redaction" })`.
 *
 * @example
 * ```ts
 * UsePiiRedaction({ kinds: ["email", "card"], on: ["toolResults", "responses", "userMessages"] })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UsePiiRedaction = (options: Options = {}): AgentBuilder.Capability => {
  const checked = check(options)
  return UseHook(hookOf(checked), { triggers: HookTriggers.of(...[...checked.on].map((p) => triggerOf[p])), priority, name })
}
