/**
 * The event sent after each hook runs, and the sink that receives it. With no sink
 * the dispatcher takes no clock readings and builds no events.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { HookTrigger } from "./HookTrigger.js"
import { finite } from "./internal/finite.js"
import type { WrapPoint } from "./internal/wrapPoint.js"

/**
 * What a hook did: returned its input (`unchanged`), returned a new context
 * (`changed`), failed under `onError: 'skip'` (`skipped`), or failed the dispatch
 * (`failed`).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome = "unchanged" | "changed" | "skipped" | "failed"

/**
 * What a hook did beyond its outcome: blocked the tool call (`blocked`) or raised a
 * stop signal (`stopped`). A field of its own, not a case of `Outcome`, so that a
 * switch on `outcome` stays exhaustive.
 *
 * @since 0.1.0
 * @category models
 */
export type HookEffect = "blocked" | "stopped"

/**
 * @since 0.1.0
 * @category models
 */
export interface HookExecuted {
  readonly _tag: "HookExecuted"
  /** The trigger, or the wrap point of a wrap hook. */
  readonly trigger: HookTrigger | WrapPoint
  readonly hook: string
  /** Epoch milliseconds. */
  readonly startedAt: number
  readonly durationMs: number
  readonly outcome: Outcome
  /** The error message, for `skipped` and `failed`. */
  readonly error?: string | undefined
  /** The id of the run the hook ran in (its state's id). */
  readonly runId?: string | undefined
  /** The tool call the trigger or wrap point is about (BeforeToolUse, AfterToolUse, WrapToolUse). */
  readonly toolCallId?: string | undefined
  /** What the hook did: blocked the call or raised a stop signal; absent when neither. */
  readonly effect?: HookEffect | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (input: Omit<HookExecuted, "_tag">): HookExecuted =>
  Object.freeze({
    _tag: "HookExecuted",
    trigger: input.trigger,
    hook: input.hook,
    startedAt: finite("startedAt", input.startedAt),
    durationMs: finite("durationMs", input.durationMs),
    outcome: input.outcome,
    error: input.error,
    runId: input.runId,
    toolCallId: input.toolCallId,
    effect: input.effect,
  })

/**
 * Receives events as they happen; must not throw (a throw is caught and ignored).
 *
 * @since 0.1.0
 * @category models
 */
export type EventSink = (event: HookExecuted) => void

/**
 * Where `HookStack.intercept` sends its events; unset by default (no events).
 *
 * @since 0.1.0
 * @category services
 */
export const CurrentEventSink = Context.Reference<EventSink | undefined>("@hookline/core/HookExecuted/CurrentEventSink", {
  defaultValue: () => undefined,
})

/**
 * A sink that keeps every event in an array, for tests and timelines.
 *
 * @since 0.1.0
 * @category constructors
 */
export const collect = (): { readonly sink: EventSink; readonly events: ReadonlyArray<HookExecuted> } => {
  const events: Array<HookExecuted> = []
  return { sink: (event) => void events.push(event), events }
}
