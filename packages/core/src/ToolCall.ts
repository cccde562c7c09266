/**
 * A model's request to call a tool.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "./Json.js"
import { deepFreeze } from "./internal/immer.js"
import { isBoundedString, seal, sealJson } from "./internal/sealed.js"

/**
 * `arguments` is the decoded JSON the model sent; a driver that receives text that is
 * not JSON passes that text on as a string, and the tool's validator rejects it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: JsonValue
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (call: { readonly id: string; readonly name: string; readonly arguments?: JsonValue }): ToolCall => {
  const { id, name } = call
  const args = call.arguments === undefined ? {} : call.arguments
  // Valid parts: a sealed call holding a frozen copy of the arguments, which the agent
  // trusts without checking again. Anything else is frozen as given, and checked there.
  const copy = isBoundedString(id) && isBoundedString(name) ? sealJson(args) : undefined
  return copy === undefined ? deepFreeze({ id, name, arguments: args }) : seal(Object.freeze({ id, name, arguments: copy }))
}
