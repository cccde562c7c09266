/**
 * Summarization when the history grows past a token count: before a model call whose
 * messages are estimated above `maxTokens`, the older part of the conversation is
 * summarized by a model call (through the agent's own driver or another one) and the
 * model reads the summary (in its system prompt) and the latest messages instead.
 * Only the request is edited: the state keeps every message, and the summary itself
 * is kept in the state's metadata under `context:summarization` (its text and how many
 * history messages it covers), so later calls reuse it and a resumed run starts from
 * it. A summary that itself grows too large is summarized again with the next part.
 *
 * If the summarizing call fails, the request goes as it is (the call may still fit);
 * the failure is not the run's.
 *
 * @since 0.1.0
 */
import { type AgentBuilder, type Driver, UseHook } from "@hookline/agent"
import {
  AgentState,
  Hook,
  HookContext,
  HookTrigger,
  InferenceRequest,
  Json,
  Message,
  type InferenceRequest as Request,
} from "@hookline/core"
import { Effect } from "effect"
import * as O from "./internal/builtinOptions.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The model that writes the summary: the agent's own driver, or a cheaper one. */
  readonly driver: Driver
  /** Summarize when the messages of a call are estimated above this many tokens. */
  readonly maxTokens: number
  /** How many of the latest messages the model always reads as they are; default 6. */
  readonly keep?: number | undefined
  /** The summarizer's instructions; default `defaultPrompt`. */
  readonly prompt?: string | undefined
}

/** @since 0.1.0 @category constants */
export const name = "context:summarization"

/** Before other request edits (a window, clearing results) see the request. @since 0.1.0 @category constants */
export const priority = -40

/** @since 0.1.0 @category constants */
export const defaultPrompt =
  "Summarize the conversation below for the assistant that will continue it: the user's goals, the facts and tool results it still needs, decisions made and open questions. Be concise; do not address the user."

/** Longest text of one message put into the transcript; longest summary kept. */
const maxMessageText = 4_000
const maxSummary = 8_000

/**
 * The summary a state carries, if any.
 *
 * @since 0.1.0
 * @category getters
 */
export const summaryOf = (state: AgentState.AgentState): { readonly text: string; readonly count: number } | undefined => {
  const stored = state.metadata[name]
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return undefined
  const { text, count } = stored as { readonly text?: unknown; readonly count?: unknown }
  return typeof text === "string" && typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? { text, count } : undefined
}

const textOf = (message: Message.Message): string => {
  const calls = message.role === "assistant" && message.toolCalls.length > 0
    ? ` [calls ${message.toolCalls.map((c) => `${c.name}(${Json.excerpt(c.arguments, 200)})`).join(", ")}]`
    : ""
  return `${message.content}${calls}`
}

/**
 * A rough token count of messages: characters / 4, the usual estimate for English.
 *
 * @since 0.1.0
 * @category getters
 */
export const estimateTokens = (messages: Iterable<Message.Message>): number => {
  let chars = 0
  for (const message of messages) chars += textOf(message).length + 4
  return Math.ceil(chars / 4)
}

const transcript = (previous: string | undefined, messages: ReadonlyArray<Message.Message>): string => {
  const lines = messages.map((m) => {
    const who = m.role === "tool" ? `tool ${m.toolName}` : m.role
    const text = textOf(m)
    return `${who}: ${text.length > maxMessageText ? `${text.slice(0, maxMessageText)}…` : text}`
  })
  return [previous === undefined ? "" : `Summary so far:\n${previous}\n`, "Conversation:", ...lines].join("\n")
}

const withSummary = (request: Request.InferenceRequest, summary: string, rest: ReadonlyArray<Message.Message>) =>
  InferenceRequest.make({
    ...request,
    systemPrompt: `${request.systemPrompt}${request.systemPrompt === "" ? "" : "\n\n"}Summary of the earlier conversation:\n${summary}`,
    messages: rest,
  })

// A driver's `generate`, read where a Proxy's trap may throw: then it is not a driver.
const generates = (driver: Driver | undefined): boolean => {
  try {
    return typeof driver?.generate === "function"
  } catch {
    return false
  }
}

const check = (options: unknown) => {
  const o = O.record("options", options, ["driver", "maxTokens", "keep", "prompt"])
  const driver = o["driver"] as Driver | undefined
  if (!generates(driver)) O.invalid("options.driver", "expected a driver (Driver.make, or the agent's own)")
  return {
    driver: driver as Driver,
    maxTokens: O.count("options.maxTokens", o["maxTokens"], 1),
    keep: o["keep"] === undefined ? 6 : O.count("options.keep", o["keep"]),
    prompt: o["prompt"] === undefined ? defaultPrompt : O.text("options.prompt", o["prompt"]),
  }
}

/**
 * The hook, for BeforeInference (effectful: it may call a model). Throws
 * `InvalidConfiguration` for bad options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Hook.EffectHook<never> => {
  const { driver, maxTokens, keep, prompt } = check(options)
  return Hook.effect((ctx) => {
    const request = ctx.request
    if (ctx.trigger !== HookTrigger.BeforeInference || request === undefined) return Effect.succeed(ctx)
    const messages = request.messages.toArray()
    const stored = summaryOf(ctx.state)
    const from = stored !== undefined && stored.count <= messages.length ? stored.count : 0
    const summary = from === 0 ? undefined : stored?.text
    const view = summary === undefined ? messages : messages.slice(from)
    if (estimateTokens(view) + Math.ceil((summary?.length ?? 0) / 4) <= maxTokens) {
      return Effect.succeed(summary === undefined ? ctx : HookContext.withRequest(ctx, withSummary(request, summary, view)))
    }
    // Cut before the latest `keep` messages, never between a tool call and its results.
    let split = messages.length - keep
    while (split > from && messages[split]?.role === "tool") split--
    if (split <= from) {
      return Effect.succeed(summary === undefined ? ctx : HookContext.withRequest(ctx, withSummary(request, summary, view)))
    }
    const summarize = InferenceRequest.make({
      systemPrompt: prompt,
      messages: [Message.user(transcript(summary, messages.slice(from, split)))],
    })
    return Effect.tryPromise({
      try: (signal) => Effect.runPromise(driver.generate(summarize, { signal }), { signal }),
      catch: (cause) => cause,
    }).pipe(
      Effect.map((response) => {
        const text = response.text.trim().slice(0, maxSummary)
        if (text === "") return summary === undefined ? ctx : HookContext.withRequest(ctx, withSummary(request, summary, view))
        const withState = HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: { text, count: split } }))
        return HookContext.withRequest(withState, withSummary(request, text, messages.slice(split)))
      }),
      // A failed summary is not the run's failure: the call goes as it would have.
      Effect.catch(() => Effect.succeed(summary === undefined ? ctx : HookContext.withRequest(ctx, withSummary(request, summary, view)))),
    )
  })
}

/**
 * As a capability: `UseHook(make(options), { triggers: BeforeInference, priority: -40,
 * name: "context:summarization" })`.
 *
 * @example
 * ```ts
 * UseSummarization({ driver, maxTokens: 20_000, keep: 8 })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseSummarization = (options: Options): AgentBuilder.Capability =>
  UseHook(make(options), { triggers: HookTrigger.BeforeInference, priority, name })
