/**
 * JSON values: what metadata, tool arguments and tool outputs are made of, so that
 * every state can be serialized.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<JsonValue>
  | { readonly [key: string]: JsonValue }

/**
 * @since 0.1.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: JsonValue }

/**
 * Free-form, JSON-serializable data attached to states and contexts.
 *
 * @since 0.1.0
 * @category models
 */
export type Metadata = { readonly [key: string]: JsonValue }

/**
 * The empty metadata object (frozen, shared).
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyMetadata: Metadata = Object.freeze({})

/**
 * Renders a JSON value as text: strings as they are, everything else as JSON.
 *
 * @since 0.1.0
 * @category getters
 */
export const toText = (value: JsonValue): string => (typeof value === "string" ? value : JSON.stringify(value))
