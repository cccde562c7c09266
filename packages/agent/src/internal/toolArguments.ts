/**
 * Validators for untrusted tool arguments, from an io-ts codec or a Standard Schema.
 * A failure names the path of the bad value the way core's codecs do: `items[1].qty`.
 *
 * @internal
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Json, type JsonValue, type ToolCall } from "@hookline/core"
import { Effect, Exit } from "effect"
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

export const ioTsError = (errors: t.Errors): ArgumentsError => {
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

export const fromResult = <A>(result: StandardSchemaV1.Result<A>): Effect.Effect<A, ArgumentsError> => {
  if (!result.issues) return Effect.succeed(result.value)
  const issue = result.issues[0]
  return Effect.fail(issue === undefined ? { path: "", message: "invalid arguments" } : {
    path: formatPath(issue.path),
    message: issue.message,
  })
}

export const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
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

const isFunction = (u: unknown): u is (...args: ReadonlyArray<never>) => unknown => typeof u === "function"

const isObject = (u: unknown): u is object => (typeof u === "object" && u !== null) || typeof u === "function"

/** A Standard Schema by its marker (`schemaProblem` checks the rest). */
export const isStandardSchema = (u: object): u is StandardSchemaV1<unknown, unknown> => "~standard" in u

const isCodec = (u: object): u is t.Type<unknown, unknown, unknown> =>
  "decode" in u && isFunction(u.decode) && "is" in u && isFunction(u.is) && "encode" in u && isFunction(u.encode)
  && "name" in u && typeof u.name === "string"

/**
 * What is wrong with a value given as a schema (a tool's parameters, a run context's
 * declaration); `undefined` when it is an io-ts codec or a Standard Schema of version 1
 * with a validate function.
 */
export const schemaProblem = (u: unknown): string | undefined => {
  if (!isObject(u)) return "expected an io-ts codec or a Standard Schema"
  if (isStandardSchema(u)) {
    const standard: unknown = u["~standard"]
    if (!isObject(standard) || !("version" in standard) || standard.version !== 1) return "expected a Standard Schema of version 1"
    return "validate" in standard && isFunction(standard.validate)
      ? undefined
      : "the Standard Schema has no validate function (with Effect Schema, use Schema.toStandardSchemaV1)"
  }
  return isCodec(u) ? undefined : "expected an io-ts codec or a Standard Schema"
}

// Deeper or larger arguments are refused: core's bounds (`Json.maxDepth`,
// `Json.maxValues`), which its JSON codec uses too, so every state round-trips.
const { maxDepth, maxValues } = Json

/** A call whose arguments were refused for their depth or size, before any validator. */
export interface Refusal {
  /** The call as it is recorded: its arguments are a short excerpt of what was sent. */
  readonly toolCall: ToolCall
  readonly path: string
  readonly message: string
}

// Calls this module made for refused arguments. Weak, and keyed by frozen calls made
// here: a call a hook rebuilds is checked again (`bounds`), and nothing stays alive.
const refusals = new WeakMap<ToolCall, Refusal>()

/** How much of refused arguments the recorded call keeps (as a string). */
const excerptLength = 200

/** A call whose arguments are too deep or too large: it keeps an excerpt of them. */
export const refused = (
  call: { readonly id: string; readonly name: string },
  args: unknown,
  path: string,
  message: string,
): Refusal => {
  const toolCall: ToolCall = Object.freeze({ id: call.id, name: call.name, arguments: Json.excerpt(args, excerptLength) })
  const refusal = Object.freeze({ toolCall, path, message })
  refusals.set(toolCall, refusal)
  return refusal
}

const appendSegment = (path: string, key: string | number): string =>
  typeof key === "number" ? `${path}[${key}]` : path === "" ? key : `${path}.${key}`

/**
 * Why these arguments cannot be validated (nested deeper than `maxDepth`, more than
 * `maxValues` values), or `undefined`. Reads at most `maxValues` values and recurses at
 * most `maxDepth` levels, so it is safe on any input.
 */
export const bounds = (args: JsonValue): { readonly path: string; readonly message: string } | undefined => {
  let budget = maxValues
  const found: Array<string | number> = []
  let message = ""
  const walk = (u: unknown, depth: number): boolean => {
    if (--budget < 0) {
      message = `too large: more than ${maxValues} JSON values`
      return false
    }
    if (typeof u !== "object" || u === null) return true
    if (depth >= maxDepth) {
      message = `nested deeper than ${maxDepth} levels`
      return false
    }
    if (Array.isArray(u)) {
      for (let i = 0; i < u.length; i++) {
        if (!walk(u[i], depth + 1)) return (found.push(i), false)
      }
      return true
    }
    for (const key of Object.keys(u)) {
      if (!walk((u as Record<string, unknown>)[key], depth + 1)) return (found.push(key), false)
    }
    return true
  }
  if (walk(args, 0)) return undefined
  let path = ""
  for (let i = found.length - 1; i >= 0; i--) path = appendSegment(path, found[i] as string | number)
  return { path, message }
}

/**
 * The refusal of a call: made at the driver boundary (`refused`), or found now for
 * arguments a hook set. The recorded call of a refusal found now keeps an excerpt.
 */
export const refusalOf = (toolCall: ToolCall): Refusal | undefined => {
  const known = refusals.get(toolCall)
  if (known !== undefined) return known
  // Core seals only arguments within these bounds (ToolCall.make).
  if (Json.isSealed(toolCall)) return undefined
  if (typeof toolCall.arguments !== "object" || toolCall.arguments === null) return undefined
  const problem = bounds(toolCall.arguments)
  return problem === undefined ? undefined : refused(toolCall, toolCall.arguments, problem.path, problem.message)
}

/**
 * What a tool's validator made of a call's arguments: the value the tool would get
 * (`Valid`), arguments the call fails on and so will not run (`Invalid`), or no answer
 * yet, because the validator answers asynchronously (`Async`).
 */
export type Decoded =
  | { readonly _tag: "Valid"; readonly value: unknown }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "Async" }

const invalidArguments: Decoded = Object.freeze({ _tag: "Invalid" })
const asyncArguments: Decoded = Object.freeze({ _tag: "Async" })

// Decoded arguments, per frozen call and per validator (a tool's `validate`, which a
// tool copied by the builder keeps). A hook that edits a call makes a new call object,
// so an edit is decoded again; nothing here keeps a call alive.
const decodedCalls = new WeakMap<ToolCall, Map<Validate<unknown>, Decoded>>()

const isAsyncDefect = (exit: Exit.Exit<unknown, unknown>): boolean =>
  Exit.isFailure(exit) && exit.cause.reasons.some((r) => r._tag === "Die" && (r.defect as { readonly _tag?: unknown } | null)?._tag === "AsyncFiberError")

const decodeNow = (validate: Validate<unknown>, toolCall: ToolCall): Decoded => {
  // Arguments too deep or too large fail the call before any validator.
  if (refusalOf(toolCall) !== undefined) return invalidArguments
  const validated = validate(toolCall.arguments)
  const exit = Exit.isExit(validated) ? validated : Effect.runSyncExit(validated)
  if (Exit.isSuccess(exit)) return Object.freeze({ _tag: "Valid", value: exit.value })
  // A validator that throws fails the call too (ToolFailed): it will not run.
  return isAsyncDefect(exit) ? asyncArguments : invalidArguments
}

const isFrozenCall = (toolCall: ToolCall): boolean =>
  Object.isFrozen(toolCall) && (typeof toolCall.arguments !== "object" || toolCall.arguments === null || Object.isFrozen(toolCall.arguments))

/**
 * A call's arguments decoded by `validate`, once per frozen call and validator; a call
 * that is not frozen (it could change) is decoded each time.
 */
export const decodeOnce = (validate: Validate<unknown>, toolCall: ToolCall): Decoded => {
  const byValidator = decodedCalls.get(toolCall)
  const known = byValidator?.get(validate)
  if (known !== undefined) return known
  const decoded = decodeNow(validate, toolCall)
  if (!isFrozenCall(toolCall)) return decoded
  if (byValidator === undefined) decodedCalls.set(toolCall, new Map([[validate, decoded]]))
  else byValidator.set(validate, decoded)
  return decoded
}
