/**
 * The agent's system prompt and response format, applied to the state by a hook:
 * `ApplyContextConfigHook`, named `context:config`, on BeforeStep at priority 100.
 *
 * @since 0.1.0
 */
import { AgentState, HookContext, type Hook, type InferenceRequest } from "@hookline/core"
import { check } from "./internal/contextConfig.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface ContextConfig {
  readonly systemPrompt?: string | undefined
  readonly responseFormat?: InferenceRequest.ResponseFormat | undefined
}

/**
 * The hook's name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const name = "context:config"

/**
 * The hook's priority: after the guards (200), before business logic (0).
 *
 * @since 0.1.0
 * @category constructors
 */
export const priority = 100

/**
 * A pure hook that sets the configured system prompt and response format on the
 * state. Only non-empty values apply: an empty prompt or an absent format leaves the
 * state's own. Applying it twice changes nothing (the same context comes back). Throws
 * `HooklineError(InvalidConfiguration)` naming the field for a config that is not one
 * (`UseContextConfig`'s rules: a prompt is a string of at most `Json.maxStringLength`
 * characters, a format one `Codecs.ResponseFormat` decodes, no other key).
 *
 * @since 0.1.0
 * @category constructors
 */
export const ApplyContextConfigHook = (config: ContextConfig): Hook => {
  const checked = check(config)
  const systemPrompt = checked.systemPrompt === undefined || checked.systemPrompt.trim() === "" ? undefined : checked.systemPrompt
  const responseFormat = checked.responseFormat
  const apply: Hook = (ctx) => {
    let state = ctx.state
    if (systemPrompt !== undefined) state = AgentState.withSystemPrompt(state, systemPrompt)
    if (responseFormat !== undefined && !sameFormat(state.context.responseFormat, responseFormat)) {
      state = AgentState.withResponseFormat(state, responseFormat)
    }
    return HookContext.withState(ctx, state)
  }
  return apply
}

const sameFormat = (a: InferenceRequest.ResponseFormat | undefined, b: InferenceRequest.ResponseFormat): boolean =>
  a === b || (a !== undefined && JSON.stringify(a) === JSON.stringify(b))
