// The bounds of untrusted JSON, in one place: the JSON codec, core's sealed values and
// the agent's boundaries (driver answers, tool arguments) refuse past the same bounds, so
// a value one of them accepts is never refused by another (and every state round-trips).
// Re-exported as `Json.maxDepth`/`Json.maxValues`, which the other packages import.

/** Arrays and objects nested deeper than this are refused. */
export const maxDepth = 512

/** The most JSON values (every array, object and scalar) one value may hold. */
export const maxValues = 100_000
