/**
 * Fallback models: when a model call fails, the same request goes to the next model of
 * an ordered list, until one answers or the list ends.
 *
 * @since 0.1.0
 */
import { UseWrap, type AgentBuilder, type Driver } from "@hookline/agent"
import { WrapHook, type AgentError } from "@hookline/core"
import { Effect } from "effect"
import * as Bounded from "./internal/bounded.js"
import * as O from "./internal/options.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface FallbackOptions {
  /** Fall back only on failures this accepts. Default: every failure. */
  readonly when?: ((error: AgentError.InferenceFailed) => boolean) | undefined
  /** Default "fallback:models". */
  readonly name?: string | undefined
  /** Default 300: outside a retry (200), so each model gets its retries first. */
  readonly priority?: number | undefined
}

const keys = ["when", "name", "priority"]

const isDriver = (u: unknown): u is Driver =>
  typeof u === "object" && u !== null && typeof (u as Driver).generate === "function" && typeof (u as Driver).stream === "function"

/**
 * A wrap hook that tries `models`, in order, after the agent's own model failed. The
 * error of the last model tried is the call's. Throws
 * `HooklineError(InvalidConfiguration)` for an empty list or something not a driver.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fallbackModels = (models: ReadonlyArray<Driver>, options: FallbackOptions = {}): WrapHook.InferenceWrap =>
  fallbackModelsOf(models, options).wrap

// The wrap and its place, from one reading of the caller's options (a getter may answer
// otherwise the second time): the capability registers the `name`/`priority` checked here.
const fallbackModelsOf = (models: ReadonlyArray<Driver>, options: FallbackOptions): O.Placed<WrapHook.InferenceWrap> => {
  const at = "fallbackModels"
  // Read once, no hole (a hole was skipped, then tried as the agent's own model), bounded.
  const list = Bounded.list(`${at}.models`, models, "a non-empty array of drivers", (path, m) =>
    isDriver(m) ? m : O.invalid(path, "expected a driver (generate and stream), e.g. AiSdkDriver.make(model)"))
  if (list.length === 0) O.invalid(`${at}.models`, "expected a non-empty array of drivers")
  const o = O.record(at, options, keys)
  const when = o["when"]
  if (when !== undefined && typeof when !== "function") O.invalid(`${at}.when`, "expected a function from the error to a boolean")
  const placement = O.placement(at, o, "fallback:models", 300)
  const accepts = (when as FallbackOptions["when"]) ?? (() => true)
  const wrap = WrapHook.inference<never>((ctx, next) => {
    const from = (i: number, call: ReturnType<typeof next>): ReturnType<typeof next> =>
      Effect.catch(call, (error) => (i < list.length && accepts(error) ? from(i + 1, next(ctx, { model: list[i] })) : Effect.fail(error)))
    return from(0, next(ctx))
  })
  return { wrap, placement }
}

/**
 * Fallback models as a capability: `UseFallbackModels([backup, cheaper])`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseFallbackModels = (models: ReadonlyArray<Driver>, options: FallbackOptions = {}): AgentBuilder.Capability => {
  const { wrap, placement } = fallbackModelsOf(models, options)
  return UseWrap(wrap, placement)
}
