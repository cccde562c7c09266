// The JSON value types, as a types-only leaf that imports nothing of the package: the
// sealed-value check (internal/sealed.ts) names them without importing Json.ts, which
// imports it. Json.ts is the public face and re-exports them.

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
