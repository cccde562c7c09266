/**
 * Schema patterns run by RE2 (re2js, pure JavaScript): matching is linear in the input,
 * so a pattern such as `(a+)+$` cannot block the event loop. Patterns RE2 cannot express
 * (backreferences, lookaround) are refused when the schema is compiled.
 *
 * @internal
 */
import { RE2JS } from "re2js"

/** The longest pattern taken from a schema, in characters. */
export const maxPatternLength = 1_000

/**
 * A pattern RE2 cannot run, or one too long.
 */
export class PatternUnsupported extends Error {
  override readonly name = "PatternUnsupported"
}

/**
 * The pattern compiled for RE2, or `PatternUnsupported` saying why not. ECMAScript
 * syntax that RE2 spells otherwise (`\u00e9`, `(?<name>…)`) is translated first.
 */
export const compile = (pattern: string): RE2JS => {
  if (pattern.length > maxPatternLength) {
    throw new PatternUnsupported(`the pattern has ${pattern.length} characters (limit ${maxPatternLength})`)
  }
  try {
    return RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error)
    throw new PatternUnsupported(`the pattern ${JSON.stringify(pattern.slice(0, 80))} cannot be checked in linear time: ${detail}`)
  }
}

/**
 * The `code.regExp` engine for ajv: each `pattern` and `patternProperties` key of a
 * schema is compiled here instead of with `new RegExp`. `test` is an unanchored search,
 * as `RegExp.prototype.test` is. The flags ajv passes (`u`) are RE2's behaviour already.
 * `toString` names the pattern: ajv keys its compiled patterns by it.
 */
export const engine = Object.assign(
  (pattern: string, _flags: string): { readonly test: (s: string) => boolean; readonly toString: () => string } => {
    const compiled = compile(pattern)
    return { test: (s: string) => compiled.test(s), toString: () => `re2js:${pattern}` }
  },
  { code: "re2js" },
)
