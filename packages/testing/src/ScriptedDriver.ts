/**
 * A `Driver` that answers from a script, for offline tests of agents: each model
 * call (`generate` or `stream`) consumes the next entry of the script, a `Turn`.
 * The driver records every request it saw and counts the calls that were aborted.
 *
 * @since 0.1.0
 */
import { Driver } from "@hookline/agent"
import {
  AgentError,
  InferenceResponse,
  ToolCall,
  Usage,
  type InferenceRequest,
  type JsonValue,
} from "@hookline/core"
import { Duration, Effect, Layer, Option, Stream } from "effect"

/**
 * Marks the turns made by this module's constructors.
 *
 * @since 0.1.0
 * @category symbols
 */
export const TypeId: unique symbol = Symbol.for("@hookline/testing/ScriptedDriver/Turn")

/**
 * @since 0.1.0
 * @category symbols
 */
export type TypeId = typeof TypeId

/**
 * Token usage as a script states it.
 *
 * @since 0.1.0
 * @category models
 */
export type UsageInput = Usage | {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedInputTokens?: number | undefined
  readonly reasoningTokens?: number | undefined
}

/**
 * A tool call as a script states it; `id` defaults to `call_<n>`, where `n` counts
 * every tool call the driver answered with, from 1.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedToolCall {
  readonly name: string
  readonly arguments?: JsonValue | undefined
  readonly id?: string | undefined
}

/**
 * Options of an answer (`text` or `toolCalls`). With `chunks`, the streaming form
 * yields those text deltas; their concatenation must equal the text. `reasoning` is the
 * model's reasoning (`InferenceResponse.reasoning`), streamed before the text as one
 * delta, or as `reasoningChunks`, whose concatenation must equal it.
 *
 * @since 0.1.0
 * @category models
 */
export interface AnswerOptions {
  readonly usage?: UsageInput | undefined
  readonly finishReason?: InferenceResponse.FinishReason | undefined
  readonly modelId?: string | undefined
  readonly chunks?: ReadonlyArray<string> | undefined
  readonly reasoning?: string | undefined
  readonly reasoningChunks?: ReadonlyArray<string> | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Text extends AnswerOptions {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Text"
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface ToolCalls extends AnswerOptions {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "ToolCalls"
  readonly calls: ReadonlyArray<ScriptedToolCall>
  readonly text: string
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Failure"
  readonly error: AgentError.InferenceFailed
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Delay {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Delay"
  readonly duration: Duration.Input
  readonly turn: Turn
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Hang {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Hang"
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Respond {
  readonly [TypeId]: typeof TypeId
  readonly _tag: "Respond"
  readonly respond: (request: InferenceRequest, index: number) => Turn
}

/**
 * One model call of a script.
 *
 * @since 0.1.0
 * @category models
 */
export type Turn = Text | ToolCalls | Failure | Delay | Hang | Respond

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The model id of every response unless a turn names its own; default "scripted". */
  readonly modelId?: string | undefined
  /** The usage of every answer unless a turn states its own; default zero. */
  readonly usage?: UsageInput | undefined
  /** Answer with the last entry again once the script is exhausted; default false. */
  readonly repeatLast?: boolean | undefined
}

/**
 * A scripted driver: the `Driver` shape plus what a test wants to read back.
 *
 * @since 0.1.0
 * @category models
 */
export interface ScriptedDriver extends Driver.DriverShape {
  /** Every request the driver saw, in order (generate and stream alike), frozen. */
  readonly requests: ReadonlyArray<InferenceRequest>
  /** How many calls were interrupted or ended by their abort signal. */
  readonly aborted: number
  /** How many script entries are left. */
  readonly remaining: number
  /** A layer that provides this driver as the `Driver` service. */
  readonly layer: Layer.Layer<Driver.Driver>
  /**
   * The model id of its answers unless a turn names its own (`Options.modelId`, default
   * "scripted"); the loop records it on an attempt that failed, as it does a real driver's.
   */
  readonly modelId: string
  /** The model it names before a call: provider `scripted`, its `modelId`. */
  readonly model: Driver.ModelDescriptor
}

const turn = <T extends Turn>(fields: Omit<T, typeof TypeId>): T => Object.freeze({ [TypeId]: TypeId, ...fields }) as T

/**
 * A final answer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const text = (text: string, options: AnswerOptions = {}): Text => turn<Text>({ ...options, _tag: "Text", text })

/**
 * Tool calls, with optional text; the finish reason defaults to "tool-calls".
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolCalls = (
  calls: ReadonlyArray<ScriptedToolCall>,
  options: AnswerOptions & { readonly text?: string | undefined } = {},
): ToolCalls =>
  turn<ToolCalls>({
    ...options,
    _tag: "ToolCalls",
    calls: Array.isArray(calls)
      ? Object.freeze(calls.map((call) => (typeof call === "object" && call !== null ? Object.freeze({ ...call }) : call)))
      : calls,
    text: options.text ?? "",
  })

/**
 * The call fails with `InferenceFailed`; `options` set (or override) its status and
 * whether it is retryable.
 *
 * @since 0.1.0
 * @category constructors
 */
export const failure = (
  messageOrError: string | Error | AgentError.InferenceFailed,
  options: { readonly status?: number | undefined; readonly retryable?: boolean | undefined } = {},
): Failure => {
  const base = typeof messageOrError === "string"
    ? AgentError.inferenceFailed(messageOrError)
    : Driver.inferenceFailed(messageOrError)
  const error = options.status === undefined && options.retryable === undefined
    ? base
    : AgentError.inferenceFailed(base.message, {
      status: options.status ?? base.status,
      retryable: options.retryable ?? base.retryable,
    })
  return turn<Failure>({ _tag: "Failure", error })
}

/**
 * Waits `duration` on the Effect clock (so `TestClock` drives it), then behaves like
 * `turn`. The wait ends early when the call's signal aborts or its fiber is interrupted.
 *
 * @since 0.1.0
 * @category constructors
 */
export const delay = (duration: Duration.Input, next: Turn): Delay => turn<Delay>({ _tag: "Delay", duration, turn: next })

/**
 * Never answers: only the call's abort signal or interruption ends it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const hang = (): Hang => turn<Hang>({ _tag: "Hang" })

/**
 * Computes the turn from the request; `index` is the number of calls the driver
 * made before this one (0 for the first call), whichever entry they consumed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const respond = (f: (request: InferenceRequest, index: number) => Turn): Respond =>
  turn<Respond>({ _tag: "Respond", respond: f })

/**
 * @since 0.1.0
 * @category guards
 */
export const isTurn = (u: unknown): u is Turn =>
  typeof u === "object" && u !== null && (u as { readonly [TypeId]?: unknown })[TypeId] === TypeId

// -- validation ---------------------------------------------------------------

const invalid = (path: string, detail: string): AgentError.HooklineError =>
  new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))

const show = (u: unknown): string => {
  if (typeof u === "function") return "a function"
  try {
    return JSON.stringify(u) ?? String(u)
  } catch {
    return String(u)
  }
}

const validateUsage = (usage: unknown, path: string): void => {
  if (usage === undefined) return
  const count = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0
  const u = usage as UsageInput
  const ok = typeof usage === "object" && usage !== null
    && count(u.inputTokens) && count(u.outputTokens)
    && (u.cachedInputTokens === undefined || count(u.cachedInputTokens))
    && (u.reasoningTokens === undefined || count(u.reasoningTokens))
  if (!ok) {
    throw invalid(
      path,
      `expected { inputTokens, outputTokens, cachedInputTokens?, reasoningTokens? } with non-negative numbers, got ${show(usage)}`,
    )
  }
}

const validateAnswer = (t: Text | ToolCalls, path: string): void => {
  if (typeof t.text !== "string") throw invalid(`${path}.text`, `expected a string, got ${show(t.text)}`)
  validateUsage(t.usage, `${path}.usage`)
  if (t.finishReason !== undefined && !InferenceResponse.finishReasons.includes(t.finishReason)) {
    throw invalid(`${path}.finishReason`, `expected one of ${InferenceResponse.finishReasons.join(", ")}, got ${show(t.finishReason)}`)
  }
  if (t.modelId !== undefined && typeof t.modelId !== "string") {
    throw invalid(`${path}.modelId`, `expected a string, got ${show(t.modelId)}`)
  }
  validateChunks(t.chunks, t.text, `${path}.chunks`, "text")
  if (t.reasoning !== undefined && typeof t.reasoning !== "string") {
    throw invalid(`${path}.reasoning`, `expected a string, got ${show(t.reasoning)}`)
  }
  validateChunks(t.reasoningChunks, t.reasoning ?? "", `${path}.reasoningChunks`, "reasoning")
}

// Chunks, when given, are strings that add up to what they stream.
const validateChunks = (chunks: unknown, whole: string, path: string, what: string): void => {
  if (chunks === undefined) return
  if (!Array.isArray(chunks) || !chunks.every((c) => typeof c === "string")) {
    throw invalid(path, `expected an array of strings, got ${show(chunks)}`)
  }
  const joined = chunks.join("")
  if (joined !== whole) throw invalid(path, `the chunks add up to ${show(joined)}, not to the ${what} ${show(whole)}`)
}

const validateTurn = (t: unknown, path: string): void => {
  if (!isTurn(t)) {
    throw invalid(path, `expected a turn made by ScriptedDriver.text, toolCalls, failure, delay, hang or respond, got ${show(t)}`)
  }
  switch (t._tag) {
    case "Text":
      return validateAnswer(t, path)
    case "ToolCalls": {
      if (!Array.isArray(t.calls)) throw invalid(`${path}.calls`, `expected an array, got ${show(t.calls)}`)
      t.calls.forEach((call: unknown, j) => {
        const at = `${path}.calls[${j}]`
        if (typeof call !== "object" || call === null) throw invalid(at, `expected a tool call, got ${show(call)}`)
        const { name, id } = call as ScriptedToolCall
        if (typeof name !== "string" || name === "") throw invalid(`${at}.name`, `expected a non-empty string, got ${show(name)}`)
        if (id !== undefined && (typeof id !== "string" || id === "")) {
          throw invalid(`${at}.id`, `expected a non-empty string, got ${show(id)}`)
        }
      })
      return validateAnswer(t, path)
    }
    case "Delay":
      if (Option.isNone(Duration.fromInput(t.duration))) {
        throw invalid(`${path}.duration`, `expected a duration, got ${show(t.duration)}`)
      }
      return validateTurn(t.turn, `${path}.turn`)
    case "Respond":
      if (typeof t.respond !== "function") throw invalid(`${path}.respond`, `expected a function, got ${show(t.respond)}`)
      return
    case "Failure":
    case "Hang":
      return
  }
}

const validateOptions = (options: Options): void => {
  if (options.modelId !== undefined && typeof options.modelId !== "string") {
    throw invalid("options.modelId", `expected a string, got ${show(options.modelId)}`)
  }
  validateUsage(options.usage, "options.usage")
}

// -- the driver -----------------------------------------------------------------

interface Answer {
  readonly response: InferenceResponse
  readonly chunks: ReadonlyArray<string>
  readonly reasoningChunks: ReadonlyArray<string>
}

const toParts = ({ chunks, reasoningChunks, response }: Answer): Stream.Stream<Driver.StreamPart> =>
  Stream.fromIterable<Driver.StreamPart>([
    ...reasoningChunks.map((text) => ({ _tag: "ReasoningDelta" as const, text })),
    ...chunks.map((text) => ({ _tag: "TextDelta" as const, text })),
    ...response.toolCalls.map((toolCall) => ({ _tag: "ToolCall" as const, toolCall })),
    { _tag: "Finish", response },
  ])

const toUsage = (usage: UsageInput): Usage => Usage.make(usage.inputTokens, usage.outputTokens, usage)

/**
 * A driver that answers from `script`, one entry per call, consumed when the call
 * runs. Throws a `HooklineError(InvalidConfiguration)` naming the entry
 * (`script[i]`, `script[i].chunks`, `script[i].calls[j].name` …) when the script is
 * invalid.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (script: ReadonlyArray<Turn>, options: Options = {}): ScriptedDriver => {
  if (!Array.isArray(script)) throw invalid("script", `expected an array of turns, got ${show(script)}`)
  script.forEach((t, i) => validateTurn(t, `script[${i}]`))
  validateOptions(options)
  const entries: ReadonlyArray<Turn> = Object.freeze([...script])
  const modelId = options.modelId ?? "scripted"
  const defaultUsage = options.usage === undefined ? Usage.empty : toUsage(options.usage)
  const repeatLast = options.repeatLast ?? false

  let requests: ReadonlyArray<InferenceRequest> = Object.freeze([])
  let cursor = 0
  let calls = 0
  let toolCallCount = 0
  let aborted = 0

  const abort = Effect.suspend(() => {
    aborted++
    return Effect.fail(AgentError.inferenceFailed("the call was aborted"))
  })

  // Fails when the signal aborts; never succeeds.
  const abortedBy = (signal: AbortSignal) =>
    Effect.callback<never, AgentError.InferenceFailed>((resume) => {
      const onAbort = () => resume(abort)
      signal.addEventListener("abort", onAbort, { once: true })
      return Effect.sync(() => signal.removeEventListener("abort", onAbort))
    })

  // Waits for `effect` unless the signal aborts first; interruption counts as an abort.
  const wait = <A>(effect: Effect.Effect<A>, signal: AbortSignal): Effect.Effect<A, AgentError.InferenceFailed> =>
    Effect.suspend(() => (signal.aborted ? abort : Effect.raceFirst(effect, abortedBy(signal)))).pipe(
      Effect.onInterrupt(() => Effect.sync(() => void aborted++)),
    )

  const answer = (t: Text | ToolCalls): Answer => {
    const toolCalls = t._tag === "ToolCalls"
      ? t.calls.map((call) => {
        toolCallCount++
        return ToolCall.make({ id: call.id ?? `call_${toolCallCount}`, name: call.name, arguments: call.arguments })
      })
      : []
    const response = InferenceResponse.make({
      text: t.text,
      toolCalls,
      usage: t.usage === undefined ? defaultUsage : toUsage(t.usage),
      finishReason: t.finishReason ?? (t._tag === "ToolCalls" ? "tool-calls" : "stop"),
      modelId: t.modelId ?? modelId,
      reasoning: t.reasoning,
    })
    const reasoning = t.reasoning ?? ""
    return {
      response,
      chunks: t.chunks ?? (t.text === "" ? [] : [t.text]),
      reasoningChunks: t.reasoningChunks ?? (reasoning === "" ? [] : [reasoning]),
    }
  }

  const play = (
    t: Turn,
    path: string,
    request: InferenceRequest,
    index: number,
    signal: AbortSignal,
  ): Effect.Effect<Answer, AgentError.InferenceFailed> => {
    switch (t._tag) {
      case "Text":
      case "ToolCalls":
        return Effect.sync(() => answer(t))
      case "Failure":
        return Effect.fail(t.error)
      case "Delay":
        return Effect.andThen(
          wait(Effect.sleep(t.duration), signal),
          Effect.suspend(() => play(t.turn, `${path}.turn`, request, index, signal)),
        )
      case "Hang":
        return wait(Effect.never, signal)
      case "Respond":
        return Effect.suspend(() => {
          const at = `${path}.respond(…)`
          try {
            const next = t.respond(request, index)
            validateTurn(next, at)
            return play(next, at, request, index, signal)
          } catch (error) {
            // A bug in the test, not a model failure: a defect.
            return Effect.die(error instanceof AgentError.HooklineError ? error : invalid(at, `threw ${AgentError.messageOf(error)}`))
          }
        })
    }
  }

  // One model call: record the request, take the next entry, play it.
  const call = (request: InferenceRequest, callOptions: Driver.CallOptions): Effect.Effect<Answer, AgentError.InferenceFailed> =>
    Effect.suspend(() => {
      const index = calls++
      requests = Object.freeze([...requests, request])
      let position = cursor
      if (cursor < entries.length) cursor++
      else if (repeatLast && entries.length > 0) position = entries.length - 1
      else {
        const n = entries.length
        return Effect.fail(AgentError.inferenceFailed(
          `ScriptedDriver: the script is exhausted after ${n} call${n === 1 ? "" : "s"} (call ${index + 1} has no entry)`,
        ))
      }
      return play(entries[position]!, `script[${position}]`, request, index, callOptions.signal)
    })

  const shape = Driver.make({
    generate: (request, callOptions) => Effect.map(call(request, callOptions), (a) => a.response),
    stream: (request, callOptions) => Stream.unwrap(Effect.map(call(request, callOptions), toParts)),
  })

  // The layer provides the driver itself, so the loop reads its `modelId` there too.
  const self: ScriptedDriver = Object.freeze({
    generate: shape.generate,
    stream: shape.stream,
    modelId,
    model: Object.freeze({ provider: "scripted", id: modelId }),
    get layer() {
      return layer
    },
    get requests() {
      return requests
    },
    get aborted() {
      return aborted
    },
    get remaining() {
      return entries.length - cursor
    },
  })
  const layer = Driver.layer(self)
  return self
}
