/**
 * Validators for untrusted tool arguments, from an io-ts codec or a Standard Schema.
 * A failure names the path of the bad value the way core's codecs do: `items[1].qty`.
 *
 * @internal
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Effect } from "effect"
import { isLeft } from "fp-ts/lib/Either.js"
import type * as t from "io-ts"

/** Where the arguments are wrong, and what is wrong there. */
export interface ArgumentsError {
  readonly path: string
  readonly message: string
}

export type Validate<A> = (input: unknown) => Effect.Effect<A, ArgumentsError>

const preview = (value: unknown): string => {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}

// A driver passes arguments that are not JSON on as the text the model sent.
const notJson = (text: string): Effect.Effect<never, ArgumentsError> =>
  Effect.fail({
    path: "",
    message: `the arguments are not a JSON object: the model sent text that is not JSON: ${preview(text)}`,
  })

const isIndex = (key: string): boolean => /^\d+$/.test(key)

const appendKey = (path: string, key: string): string =>
  isIndex(key) ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`

// io-ts context entries for the members of unions and intersections carry the member's
// index as key; those are not part of the value's path. Refinements, exact and
// recursive types add no entry of their own.
const isBranch = (type: t.Decoder<unknown, unknown>): boolean => {
  const tag = (type as { readonly _tag?: string })._tag
  return tag === "UnionType" || tag === "IntersectionType"
}

const ioTsError = (errors: t.Errors): ArgumentsError => {
  // The deepest error is the most specific; ties go to the first reported.
  let best = errors[0]
  for (const error of errors) if (best === undefined || error.context.length > best.context.length) best = error
  if (best === undefined) return { path: "", message: "invalid arguments" }
  const entries = best.context
  let path = ""
  let expected = entries[0]?.type.name ?? "a valid value"
  for (let i = 1; i < entries.length; i++) {
    if (isBranch(entries[i - 1]!.type)) continue
    path = appendKey(path, entries[i]!.key)
    expected = entries[i]!.type.name
  }
  return { path, message: best.message ?? `expected ${expected}, got ${best.value === undefined ? "undefined" : preview(best.value)}` }
}

/** Decodes with an io-ts codec; a codec that throws is a defect (a bug in the tool). */
export const fromCodec = <A>(codec: t.Decoder<unknown, A>): Validate<A> => (input) => {
  if (typeof input === "string") return notJson(input)
  let result: t.Validation<A>
  try {
    result = codec.decode(input)
  } catch (defect) {
    return Effect.die(defect)
  }
  return isLeft(result) ? Effect.fail(ioTsError(result.left)) : Effect.succeed(result.right)
}

type Segment = PropertyKey | StandardSchemaV1.PathSegment

const keyOf = (segment: Segment): PropertyKey =>
  typeof segment === "object" && segment !== null ? segment.key : segment

/** `a.b[2].c` from a Standard Schema issue path. */
export const formatPath = (segments: ReadonlyArray<Segment> | undefined): string => {
  let path = ""
  for (const segment of segments ?? []) {
    const key = keyOf(segment)
    path = typeof key === "number" ? `${path}[${key}]` : appendKey(path, String(key))
  }
  return path
}

const fromResult = <A>(result: StandardSchemaV1.Result<A>): Effect.Effect<A, ArgumentsError> => {
  if (!result.issues) return Effect.succeed(result.value)
  const issue = result.issues[0]
  return Effect.fail(issue === undefined ? { path: "", message: "invalid arguments" } : {
    path: formatPath(issue.path),
    message: issue.message,
  })
}

const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { readonly then?: unknown }).then === "function"

/**
 * Validates with a Standard Schema, synchronous or not; a validator that throws or
 * rejects is a defect (a bug in the tool).
 */
export const fromStandardSchema = <A>(schema: StandardSchemaV1<unknown, A>): Validate<A> => {
  const standard = schema["~standard"]
  return (input) => {
    if (typeof input === "string") return notJson(input)
    return Effect.suspend(() => {
      const result = standard.validate(input)
      return isPromiseLike(result) ? Effect.flatMap(Effect.promise(() => result), fromResult) : fromResult(result)
    })
  }
}
