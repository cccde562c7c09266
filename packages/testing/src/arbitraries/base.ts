// Options of the arbitraries, JSON values and the core constants.
import {
  AgentState,
  HookTrigger,
  InferenceResponse,
  StopReason,
  type JsonObject,
  type JsonValue,
  type Metadata,
} from "@hookline/core"
import fc from "fast-check"

/**
 * Bounds and aims of the generators. Every field is optional; the defaults keep a
 * property test of 100 runs well under a second. `C` is the type of the run context
 * `runContext` generates (what the hooks under test read as `ctx.runContext`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<C = unknown> {
  /** Messages in a history (state or request). Default 6. */
  readonly maxMessages?: number | undefined
  /** Steps in a state's execution record. Default 3. */
  readonly maxSteps?: number | undefined
  /** Tool calls in an assistant message or a response. Default 2. */
  readonly maxToolCalls?: number | undefined
  /** Tool definitions in a request. Default 3. */
  readonly maxTools?: number | undefined
  /** Nesting of JSON values (tool arguments, outputs, metadata). Default 2. */
  readonly maxDepth?: number | undefined
  /** Keys of a JSON object or metadata, items of a JSON array. Default 3. */
  readonly maxKeys?: number | undefined
  /** Characters of a generated text. Default 12. */
  readonly maxLength?: number | undefined
  /** Stop signals in a state. Default 2. */
  readonly maxStopSignals?: number | undefined
  /** Errors in a state, and at OnError (at least one there). Default 2. */
  readonly maxErrors?: number | undefined
  /** Input (and output) tokens of one usage. Default 5000. */
  readonly maxTokens?: number | undefined
  /** Milliseconds between a run's start and a context's `createdAt`. Default 600000 (10 min). */
  readonly maxElapsedMs?: number | undefined
  /** The names tool calls (and tool messages, tool definitions) use. Default: a few common names and random identifiers. */
  readonly toolNames?: ReadonlyArray<string> | undefined
  /** Arguments of tool calls. Default `json(options)`. */
  readonly toolArguments?: fc.Arbitrary<JsonValue> | undefined
  /** Outputs of successful tool executions. Default `json(options)`. */
  readonly toolOutput?: fc.Arbitrary<JsonValue> | undefined
  /** Texts (message contents, prompts, reasons) and JSON strings. Default: printable ASCII up to `maxLength`. */
  readonly strings?: fc.Arbitrary<string> | undefined
  /** Metadata of states and contexts. Default `metadata(options)`. */
  readonly metadata?: fc.Arbitrary<Metadata> | undefined
  /**
   * The per-run context of hook contexts (`ctx.runContext`, never encoded). Default:
   * absent; `HookLaws` defaults to absent or a frozen JSON value. Give the shape your
   * hooks read (`fc.record({ role: fc.constantFrom("admin", "viewer") })`).
   */
  readonly runContext?: fc.Arbitrary<C> | undefined
}

/**
 * Tool names used when `toolNames` is not given, mixed with random identifiers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const commonToolNames: ReadonlyArray<string> = Object.freeze(["search", "read_file", "write_file", "shell", "fetch", "add"])

const defaults = {
  maxMessages: 6,
  maxSteps: 3,
  maxToolCalls: 2,
  maxTools: 3,
  maxDepth: 2,
  maxKeys: 3,
  maxLength: 12,
  maxStopSignals: 2,
  maxErrors: 2,
  maxTokens: 5_000,
  maxElapsedMs: 600_000,
} as const

type Sizes = { readonly [K in keyof typeof defaults]: number }

/** @internal */
export const sizes = (options: Options): Sizes => ({
  maxMessages: options.maxMessages ?? defaults.maxMessages,
  maxSteps: options.maxSteps ?? defaults.maxSteps,
  maxToolCalls: options.maxToolCalls ?? defaults.maxToolCalls,
  maxTools: options.maxTools ?? defaults.maxTools,
  maxDepth: options.maxDepth ?? defaults.maxDepth,
  maxKeys: options.maxKeys ?? defaults.maxKeys,
  maxLength: options.maxLength ?? defaults.maxLength,
  maxStopSignals: options.maxStopSignals ?? defaults.maxStopSignals,
  maxErrors: options.maxErrors ?? defaults.maxErrors,
  maxTokens: options.maxTokens ?? defaults.maxTokens,
  maxElapsedMs: options.maxElapsedMs ?? defaults.maxElapsedMs,
})

// ---------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------

/** @internal epoch milliseconds, up to the year 2096. */
export const epochMs = fc.integer({ min: 0, max: 4_000_000_000_000 })

/** @internal identifiers (metadata keys, sources, model ids): `a`, `b1`, `tool_x`. */
export const identifier = fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/)

/** @internal */
export const deepFreezeCopy = (value: JsonValue): JsonValue => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return Object.freeze(value.map(deepFreezeCopy))
  // fromEntries defines keys: `__proto__` stays data.
  return Object.freeze(Object.fromEntries(Object.entries(value).map(([key, v]) => [key, deepFreezeCopy(v as JsonValue)])))
}

/**
 * Short printable text (ASCII), shrinking towards `""`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (options: Options = {}): fc.Arbitrary<string> =>
  options.strings ?? fc.string({ maxLength: sizes(options).maxLength })

/**
 * A JSON value: null, booleans, finite numbers (never `-0`, which JSON cannot carry),
 * short strings (`options.strings`), arrays and objects nested at most `maxDepth`
 * deep, with identifier keys. Deeply frozen.
 *
 * @since 0.1.0
 * @category constructors
 */
export const json = (options: Options = {}): fc.Arbitrary<JsonValue> => {
  const { maxDepth, maxKeys } = sizes(options)
  const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1_000, max: 1_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    text(options),
  )
  if (maxDepth <= 0) return leaf
  const depthIdentifier = fc.createDepthIdentifier()
  const { value } = fc.letrec<{ value: JsonValue; array: ReadonlyArray<JsonValue>; object: JsonObject }>((tie) => ({
    value: fc.oneof({ maxDepth, depthIdentifier, depthSize: "small" }, leaf, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: maxKeys, depthIdentifier }),
    object: fc.dictionary(identifier, tie("value"), { maxKeys, noNullPrototype: true, depthIdentifier }),
  }))
  return value.map(deepFreezeCopy)
}

/**
 * A JSON object (tool parameters, provider options).
 *
 * @since 0.1.0
 * @category constructors
 */
export const jsonObject = (options: Options = {}): fc.Arbitrary<JsonObject> =>
  fc
    .dictionary(identifier, json({ ...options, maxDepth: Math.max(0, sizes(options).maxDepth - 1) }), {
      maxKeys: sizes(options).maxKeys,
      noNullPrototype: true,
    })
    .map((o) => deepFreezeCopy(o) as JsonObject)

/**
 * Metadata: identifier keys to JSON values (`options.metadata` when given).
 *
 * @since 0.1.0
 * @category constructors
 */
export const metadata = (options: Options = {}): fc.Arbitrary<Metadata> => options.metadata ?? jsonObject(options)

/**
 * @since 0.1.0
 * @category constructors
 */
export const trigger = (): fc.Arbitrary<HookTrigger> => fc.constantFrom(...HookTrigger.all)

/**
 * @since 0.1.0
 * @category constructors
 */
export const stopReason = (): fc.Arbitrary<StopReason> => fc.constantFrom(...StopReason.all)

/**
 * @since 0.1.0
 * @category constructors
 */
export const finishReason = (): fc.Arbitrary<InferenceResponse.FinishReason> => fc.constantFrom(...InferenceResponse.finishReasons)

/**
 * @since 0.1.0
 * @category constructors
 */
export const executionStatus = (): fc.Arbitrary<AgentState.ExecutionStatus> =>
  fc.constantFrom<AgentState.ExecutionStatus>("pending", "running", "completed", "stopped", "failed")
