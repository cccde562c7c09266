/**
 * Clears old tool results from what the model reads: the last `keep` tool results stay
 * as they are, every older one is replaced by a short placeholder. Only the request of
 * each model call is edited (BeforeInference): the state keeps every result, so a
 * checkpoint, a journal or a later reader loses nothing. The tool messages stay in
 * place (with their call ids), so every tool call still has its answer, as providers
 * require.
 *
 * @since 0.1.0
 */
import { UseHook, type AgentBuilder } from "@hookline/agent"
import { HookContext, HookTrigger, Message, type Hook } from "@hookline/core"
import * as O from "./internal/builtinOptions.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How many of the latest tool results the model still reads in full; default 3. */
  readonly keep?: number | undefined
  /** What the model reads in place of a cleared result. */
  readonly placeholder?: string | undefined
  /** Tools whose results are never cleared (a plan, a spec the model must keep). */
  readonly exclude?: ReadonlyArray<string> | undefined
}

/** @since 0.1.0 @category constants */
export const name = "context:clear_tool_results"

/** @since 0.1.0 @category constants */
export const defaultPlaceholder = "[tool result cleared to save context]"

/** After most request edits (a sliding window runs first and leaves less to read). @since 0.1.0 @category constants */
export const priority = -50

const check = (options: unknown) => {
  const o = O.record("options", options, ["keep", "placeholder", "exclude"])
  return {
    keep: o["keep"] === undefined ? 3 : O.count("options.keep", o["keep"]),
    placeholder: o["placeholder"] === undefined ? defaultPlaceholder : O.text("options.placeholder", o["placeholder"]),
    exclude: new Set(o["exclude"] === undefined ? [] : O.names("options.exclude", o["exclude"])),
  }
}

/**
 * The hook, for BeforeInference. Throws `InvalidConfiguration` for bad options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Hook => {
  const { keep, placeholder, exclude } = check(options)
  return (ctx) => {
    const request = ctx.request
    if (ctx.trigger !== HookTrigger.BeforeInference || request === undefined) return ctx
    const messages = request.messages.toArray()
    // Walk back from the newest: the first `keep` results that may be cleared stay.
    let kept = 0
    let cleared: Array<Message.Message> | undefined
    for (let i = messages.length - 1; i >= 0; i--) {
      const message = messages[i] as Message.Message
      if (message.role !== "tool" || exclude.has(message.toolName)) continue
      if (kept < keep) {
        kept++
        continue
      }
      if (message.content === placeholder) continue
      cleared ??= [...messages]
      cleared[i] = Message.tool({ toolCallId: message.toolCallId, toolName: message.toolName, content: placeholder, isError: message.isError })
    }
    return cleared === undefined ? ctx : HookContext.withRequest(ctx, { ...request, messages: cleared })
  }
}

/**
 * As a capability: `UseHook(make(options), { triggers: BeforeInference, priority: -50,
 * name: "context:clear_tool_results" })`.
 *
 * @example
 * ```ts
 * UseClearToolResults({ keep: 2, exclude: ["read_plan"] })
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseClearToolResults = (options: Options = {}): AgentBuilder.Capability =>
  UseHook(make(options), { triggers: HookTrigger.BeforeInference, priority, name })
