/**
 * The one bound on text that comes from outside: tool outputs, error messages and the
 * stop signals made from them. A longer text keeps its first `limit` characters and
 * ends with a marker that says how long it was (`…[truncated: N characters, limit L]`),
 * so a tool that returns 10 MB or a hook that throws a 5 MB message yields a bounded
 * state.
 *
 * @since 0.1.0
 */

/**
 * The default limit: 100,000 characters, about 25,000 tokens. Larger than any ordinary
 * tool result or error message, small enough to fit a 128k-token context with room to
 * spare.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxLength = 100_000

/**
 * What follows a cut text: `…[truncated: 10485760 characters, limit 100000]`, with the
 * length of the whole text and the limit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const marker = (length: number, limit: number): string => `…[truncated: ${length} characters, limit ${limit}]`

// The longest marker: two 16-digit numbers.
const maxMarkerLength = 80

const markerPattern = /…\[truncated: (\d+) characters, limit (\d+)\]$/

// V8 keeps a slice of a string as a view of the whole string, so a cut text would keep
// the 5 MB alive as long as the state holds it. A round trip through JSON text makes a
// string of its own (an O(limit) copy; lone surrogates survive it).
const detached = (text: string): string => JSON.parse(JSON.stringify(text)) as string

/**
 * `text` if it has at most `limit` characters (UTF-16 code units), else its first
 * `limit` characters (a surrogate pair is never split) followed by `marker`. The cut
 * text is a string of its own: it does not keep the long one alive. Cutting a cut text
 * again at the same limit returns it unchanged.
 *
 * @example
 * ```ts
 * import { Truncation } from "@hookline/core"
 * console.log(Truncation.truncate("abcdef", 3)) // "abc…[truncated: 6 characters, limit 3]"
 * ```
 *
 * @since 0.1.0
 * @category combinators
 */
export const truncate = (text: string, limit: number = defaultMaxLength): string => {
  if (text.length <= limit) return text
  // Idempotent: a text this function cut at this limit is not cut again.
  if (text.length <= limit + maxMarkerLength && of(text)?.limit === limit) return text
  const end = limit > 0 && /[\uD800-\uDBFF]/.test(text.charAt(limit - 1)) ? limit - 1 : limit
  return detached(text.slice(0, Math.max(0, end)) + marker(text.length, limit))
}

/**
 * Whether a text was cut by `truncate`; if so, the length of the whole text and the
 * limit.
 *
 * @since 0.1.0
 * @category getters
 */
export const of = (text: unknown): { readonly length: number; readonly limit: number } | undefined => {
  if (typeof text !== "string") return undefined
  const match = markerPattern.exec(text.slice(-maxMarkerLength))
  return match === null ? undefined : { length: Number(match[1]), limit: Number(match[2]) }
}
