/**
 * What a driver answers, checked where it enters the loop. A driver is outside code:
 * its answer may be `undefined`, hold `toolCalls: [null]`, `usage: NaN`, a circular
 * `metadata` or arguments nested 10,000 levels deep. One pass reads every value once
 * (a throwing getter or proxy is a bad answer, not a crash), checks it against the
 * shape of `Codecs.InferenceResponse` with the JSON codec's bounds, and builds a frozen
 * copy, so nothing the driver keeps can change what the run committed.
 *
 * Why not `Codecs.InferenceResponse.decode` itself: io-ts allocates a context entry per
 * value, several times the cost of the check on the loop's hot path. The two agree:
 * test/driverAnswer.test.ts checks that everything accepted here round-trips through
 * the codec.
 *
 * Tool-call arguments the model made too deep or too large are not the driver's fault
 * and not a failed call: the call keeps a short excerpt as its arguments, and the tool
 * phase answers it with `ToolArgumentsInvalid` (toolArguments.ts), which the model can
 * correct.
 *
 * @internal
 */
import { AgentError, InferenceResponse, Json, Usage, type JsonValue, type ToolCall } from "@hookline/core"
import * as Arguments from "./toolArguments.js"

// Deeper JSON is refused, and a metadata object or a call's arguments holding more
// values: core's bounds, which `Codecs.JsonValue` uses too.
const { maxDepth, maxValues, maxStringLength } = Json

// One string past the bound: the state the run commits would not load back.
const tooLong = (length: number): string => `longer than ${maxStringLength} characters (the maxStringLength limit): ${length}`

/** The most tool calls one answer may hold. */
export const maxToolCalls = 10_000

const finishReasons: ReadonlySet<unknown> = new Set(InferenceResponse.finishReasons)

// Answers checked here: a second check (Driver.fromPromise, then the loop) is free.
// Weak, and keyed by frozen copies this module made: it holds nothing alive.
const checked = new WeakSet<object>()

const FAIL: unique symbol = Symbol("FAIL")
type Fail = typeof FAIL

const isPlain = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

const kindOf = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : `${typeof u} ${Json.excerpt(u, 40)}`

const setKey = (out: Record<string, unknown>, key: string, value: unknown): void => {
  // `out.__proto__ = v` would set the prototype: keep it an own data key.
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true })
  else out[key] = value
}

/**
 * One check. `path` is a stack of keys (pushed and popped, never copied on success);
 * the first problem stops the walk and leaves its path on the stack.
 */
class Check {
  readonly path: Array<string | number> = []
  problem = ""
  /** The problem is that a JSON value is too deep or too large (not that it is not JSON). */
  bound = false
  private readonly open: Array<object> = []
  private budget = 0
  private limit = 0
  private base = 0

  fail(problem: string, bound = false): Fail {
    this.problem = problem
    this.bound = bound
    return FAIL
  }

  where(from = 0): string {
    let out = ""
    for (let i = from; i < this.path.length; i++) {
      const key = this.path[i] as string | number
      out += typeof key === "number" ? `[${key}]` : out === "" ? key : `.${key}`
    }
    return out
  }

  /** A bounded, frozen copy of a JSON value; `budget` values at most. */
  json(u: unknown, budget: number): JsonValue | Fail {
    this.budget = budget
    this.limit = budget
    this.base = this.path.length
    return this.value(u, 0)
  }

  private value(u: unknown, depth: number): JsonValue | Fail {
    if (--this.budget < 0) return this.fail(`too large: more than ${this.limit} JSON values`, true)
    switch (typeof u) {
      case "string":
        return u.length > maxStringLength ? this.fail(tooLong(u.length), true) : u
      case "boolean":
        return u
      case "number":
        // -0 reads as 0, as the codecs read it (JSON carries no -0).
        return Number.isFinite(u) ? (u === 0 ? 0 : u) : this.fail(`expected a finite number, got ${u}`)
      case "object":
        break
      default:
        return this.fail(`expected a JSON value, got ${kindOf(u)}`)
    }
    if (u === null) return null
    const isArray = Array.isArray(u)
    if (!isArray && !isPlain(u)) return this.fail(`expected a JSON value, got ${Object.prototype.toString.call(u)}`)
    if (depth >= maxDepth) {
      if (!this.open.includes(u)) return this.fail(`nested deeper than ${maxDepth} levels`, true)
      // A cycle: name the path where it first comes back to an ancestor.
      const open = this.open
      let d = 1
      while (d < open.length && open.indexOf(open[d] as object) === d) d++
      this.path.length = this.base + d
      return this.fail("expected a JSON value, got a circular reference")
    }
    this.open.push(u)
    const path = this.path
    if (isArray) {
      const n = u.length
      const out: Array<JsonValue> = new Array(n)
      for (let i = 0; i < n; i++) {
        path.push(i)
        const item = this.value(u[i], depth + 1)
        if (item === FAIL) return FAIL
        path.pop()
        out[i] = item
      }
      this.open.pop()
      return Object.freeze(out)
    }
    const out: Record<string, JsonValue> = {}
    for (const key of Object.keys(u)) {
      // Named at its object: the path shows keys, it does not carry 16 MB of one.
      if (key.length > maxStringLength) return this.fail(`a key ${tooLong(key.length)}`, true)
      path.push(key)
      const item = this.value((u as Record<string, unknown>)[key], depth + 1)
      if (item === FAIL) return FAIL
      path.pop()
      setKey(out, key, item)
    }
    this.open.pop()
    return Object.freeze(out)
  }

  string(u: unknown, key: string): string | Fail {
    this.path.push(key)
    const value = (u as Record<string, unknown>)[key]
    if (typeof value !== "string") return this.fail(`expected a string, got ${kindOf(value)}`)
    if (value.length > maxStringLength) return this.fail(tooLong(value.length))
    this.path.pop()
    return value
  }

  count(u: unknown, key: string): number | Fail {
    this.path.push(key)
    const value = (u as Record<string, unknown>)[key]
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      return this.fail(`expected a finite number >= 0, got ${kindOf(value)}`)
    }
    this.path.pop()
    return value === 0 ? 0 : value
  }

  // The reasoning: absent, or a string like the text (an empty one is no reasoning).
  optionalString(u: unknown, key: string): string | undefined | Fail {
    this.path.push(key)
    const value = (u as Record<string, unknown>)[key]
    if (value !== undefined && typeof value !== "string") return this.fail(`expected a string or nothing, got ${kindOf(value)}`)
    if (value !== undefined && value.length > maxStringLength) return this.fail(tooLong(value.length))
    this.path.pop()
    return value
  }

  // A usage detail (cached, reasoning tokens): absent, or a count like the others.
  optionalCount(u: unknown, key: string): number | undefined | Fail {
    this.path.push(key)
    const value = (u as Record<string, unknown>)[key]
    if (value === undefined) {
      this.path.pop()
      return undefined
    }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      return this.fail(`expected a finite number >= 0 or nothing, got ${kindOf(value)}`)
    }
    this.path.pop()
    return value === 0 ? 0 : value
  }

  record(u: unknown): object | Fail {
    return typeof u === "object" && u !== null && !Array.isArray(u) ? u : this.fail(`expected an object, got ${kindOf(u)}`)
  }

  toolCall(u: unknown, refusals: Array<Arguments.Refusal>): ToolCall | Fail {
    if (this.record(u) === FAIL) return FAIL
    const id = this.string(u, "id")
    if (id === FAIL) return FAIL
    const name = this.string(u, "name")
    if (name === FAIL) return FAIL
    this.path.push("arguments")
    const raw = (u as Record<string, unknown>)["arguments"]
    const depth = this.path.length
    const args = raw === undefined ? Object.freeze({}) : this.json(raw, maxValues)
    if (args !== FAIL) {
      this.path.pop()
      return Object.freeze({ id, name, arguments: args })
    }
    if (!this.bound) return FAIL
    // Too deep or too large: the model's mistake, answered by the tool phase.
    const refused = Arguments.refused({ id, name }, raw, this.where(depth), this.problem)
    refusals.push(refused)
    this.path.length = depth - 1
    return refused.toolCall
  }

  response(u: unknown): InferenceResponse.InferenceResponse | Fail {
    if (this.record(u) === FAIL) return FAIL
    const text = this.string(u, "text")
    if (text === FAIL) return FAIL
    const reasoning = this.optionalString(u, "reasoning")
    if (reasoning === FAIL) return FAIL
    this.path.push("toolCalls")
    const rawCalls = (u as Record<string, unknown>)["toolCalls"]
    if (!Array.isArray(rawCalls)) return this.fail(`expected an array, got ${kindOf(rawCalls)}`)
    if (rawCalls.length > maxToolCalls) return this.fail(`more than ${maxToolCalls} tool calls`)
    const refusals: Array<Arguments.Refusal> = []
    const toolCalls: Array<ToolCall> = new Array(rawCalls.length)
    for (let i = 0; i < rawCalls.length; i++) {
      this.path.push(i)
      const call = this.toolCall(rawCalls[i], refusals)
      if (call === FAIL) return FAIL
      this.path.pop()
      toolCalls[i] = call
    }
    this.path.pop()
    this.path.push("usage")
    const usage = (u as Record<string, unknown>)["usage"]
    if (this.record(usage) === FAIL) return FAIL
    const inputTokens = this.count(usage, "inputTokens")
    if (inputTokens === FAIL) return FAIL
    const outputTokens = this.count(usage, "outputTokens")
    if (outputTokens === FAIL) return FAIL
    const cachedInputTokens = this.optionalCount(usage, "cachedInputTokens")
    if (cachedInputTokens === FAIL) return FAIL
    const reasoningTokens = this.optionalCount(usage, "reasoningTokens")
    if (reasoningTokens === FAIL) return FAIL
    this.path.pop()
    this.path.push("finishReason")
    const finishReason = (u as Record<string, unknown>)["finishReason"]
    if (!finishReasons.has(finishReason)) {
      return this.fail(`expected one of ${InferenceResponse.finishReasons.join(", ")}, got ${kindOf(finishReason)}`)
    }
    this.path.pop()
    const modelId = this.string(u, "modelId")
    if (modelId === FAIL) return FAIL
    this.path.push("metadata")
    const rawMetadata = (u as Record<string, unknown>)["metadata"]
    if (this.record(rawMetadata) === FAIL) return FAIL
    const metadata = this.json(rawMetadata, maxValues)
    if (metadata === FAIL) return FAIL
    this.path.pop()
    return InferenceResponse.make({
      text,
      toolCalls,
      usage: cachedInputTokens === undefined && reasoningTokens === undefined
        ? Usage.make(inputTokens, outputTokens)
        : Usage.make(inputTokens, outputTokens, { cachedInputTokens, reasoningTokens }),
      finishReason: finishReason as InferenceResponse.FinishReason,
      modelId,
      metadata: metadata as Json.Metadata,
      reasoning,
    })
  }
}

const failure = (check: Check, what: string, prefix: string): AgentError.InferenceFailed => {
  const path = check.where()
  const at = prefix === "" ? path : path === "" ? prefix : path.startsWith("[") ? `${prefix}${path}` : `${prefix}.${path}`
  return AgentError.inferenceFailed(`the model's ${what} is invalid${at === "" ? "" : ` at ${at}`}: ${check.problem}`)
}

const thrown = (check: Check, what: string, prefix: string, cause: unknown): AgentError.InferenceFailed => {
  let message: string
  try {
    message = Json.excerpt(AgentError.messageOf(cause), 200)
  } catch {
    message = "an exception"
  }
  check.problem = `reading it threw: ${message}`
  return failure(check, what, prefix)
}

/**
 * The response, checked and copied (frozen); or `InferenceFailed` naming the path of
 * the first problem (`the model's answer is invalid at toolCalls[0].id: …`).
 */
export const response = (
  u: unknown,
  prefix = "",
): InferenceResponse.InferenceResponse | AgentError.InferenceFailed => {
  // Checked here before, or sealed by core (made by `InferenceResponse.make` from valid,
  // bounded parts, which it copied): frozen and unforgeable, so checking is skipped.
  if (typeof u === "object" && u !== null && (checked.has(u) || Json.isSealed(u))) return u as InferenceResponse.InferenceResponse
  const check = new Check()
  try {
    const out = check.response(u)
    if (out === FAIL) return failure(check, "answer", prefix)
    checked.add(out)
    return out
  } catch (cause) {
    return thrown(check, "answer", prefix, cause)
  }
}

/** Whether `u` is a response this module checked (and froze), or one core sealed. */
export const isChecked = (u: object): boolean => checked.has(u) || Json.isSealed(u)

/** Whether a value is an `InferenceFailed` (what `response` gives back on a bad answer). */
export const isFailure = <A extends object>(u: A | AgentError.InferenceFailed): u is AgentError.InferenceFailed =>
  (u as { readonly _tag?: unknown })._tag === "InferenceFailed"

/** A stream part, checked: a `Finish` carries a checked response. */
export type Part =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "ReasoningDelta"; readonly text: string }
  | { readonly _tag: "ToolCall" }
  | { readonly _tag: "Finish"; readonly response: InferenceResponse.InferenceResponse }

/** The `index`-th part of a stream, checked; or `InferenceFailed` naming `parts[index]…`. */
export const part = (u: unknown, index: number): Part | AgentError.InferenceFailed => {
  const check = new Check()
  const prefix = `parts[${index}]`
  try {
    if (check.record(u) === FAIL) return failure(check, "stream", prefix)
    const tag = (u as Record<string, unknown>)["_tag"]
    if (tag === "TextDelta" || tag === "ReasoningDelta") {
      const text = check.string(u, "text")
      return text === FAIL ? failure(check, "stream", prefix) : { _tag: tag, text }
    }
    if (tag === "ToolCall") {
      // The calls the loop runs are the Finish's; a ToolCall part only announces one.
      check.path.push("toolCall")
      const call = (u as Record<string, unknown>)["toolCall"]
      if (check.record(call) === FAIL || check.string(call, "id") === FAIL || check.string(call, "name") === FAIL) {
        return failure(check, "stream", prefix)
      }
      return { _tag: "ToolCall" }
    }
    if (tag === "Finish") {
      const checkedResponse = response((u as Record<string, unknown>)["response"], `${prefix}.response`)
      return isFailure(checkedResponse) ? checkedResponse : { _tag: "Finish", response: checkedResponse }
    }
    check.path.push("_tag")
    check.problem = `expected "TextDelta", "ReasoningDelta", "ToolCall" or "Finish", got ${kindOf(tag)}`
    return failure(check, "stream", prefix)
  } catch (cause) {
    return thrown(check, "stream", prefix, cause)
  }
}
