/**
 * A model's request to call a tool.
 *
 * @since 0.1.0
 */
import type { JsonValue } from "./Json.js"
import { deepFreeze } from "./internal/immer.js"

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
export const make = (call: { readonly id: string; readonly name: string; readonly arguments?: JsonValue }): ToolCall =>
  deepFreeze({ id: call.id, name: call.name, arguments: call.arguments === undefined ? {} : call.arguments })
