// The bounds of untrusted JSON, in one place: the JSON codec, core's sealed values and
// the agent's boundaries (driver answers, tool arguments) refuse past the same bounds, so
// a value one of them accepts is never refused by another (and every state round-trips).
// Re-exported as `Json.maxDepth`/`Json.maxValues`, which the other packages import.

/** Arrays and objects nested deeper than this are refused. */
export const maxDepth = 512

/** The most JSON values (every array, object and scalar) one value may hold. */
export const maxValues = 100_000

/**
 * The longest string (UTF-16 code units) a value may hold where it enters: a state's
 * texts, ids and names, a JSON value's strings and keys. 32 Mi characters, about eight
 * million tokens: past any model's context, and past every string a checkpoint's fast
 * check vouches for (its text at most a third of 64 MiB), so what a store wrote loads.
 */
export const maxStringLength = 32 * 1024 * 1024
