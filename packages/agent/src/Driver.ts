/**
 * The model, as an Effect service: from a request to a response, in one piece
 * (`generate`) or as a stream of parts (`stream`). Real providers come through
 * `@hookline/ai-sdk`; tests use `ScriptedDriver` from `@hookline/testing`.
 *
 * @since 0.1.0
 */
import { AgentError, InferenceResponse, type InferenceRequest, type ToolCall } from "@hookline/core"
import { Cause, Context, Effect, Exit, Layer, Stream } from "effect"
import { CallSignal, RunCallOptions } from "./internal/callSignal.js"
import * as DerivedStream from "./internal/derivedStream.js"
import * as DriverAnswer from "./internal/driverAnswer.js"

export type { CallOptions, DriverShape, ModelDescriptor, ModelServer, StreamPart } from "./internal/driverContract.js"
import type { CallOptions, DriverShape, ModelDescriptor, ModelServer, StreamPart } from "./internal/driverContract.js"

/**
 * The driver service: the Effect `Context` key under which the loop finds the model
 * (`Driver.layer(shape)` provides it). The driver itself, the value users make and
 * pass to `UseDriver`, is a `Driver.DriverShape`.
 *
 * @since 0.1.0
 * @category services
 */
export class Driver extends Context.Service<Driver, DriverShape>()("@hookline/agent/Driver") {}

/**
 * The driver service key, by a name that says so: `Driver.Service` is `Driver.Driver`
 * (`yield* Driver.Service` in an Effect gives the `DriverShape`).
 *
 * @since 0.1.0
 * @category services
 */
export const Service = Driver
/** @since 0.1.0 @category services */
export type Service = Driver

/**
 * Anything thrown or failed by a model call, as `InferenceFailed` (kept as is when it
 * already is one).
 *
 * @since 0.1.0
 * @category constructors
 */
export const inferenceFailed = (cause: unknown): AgentError.InferenceFailed =>
  // The wrapper first: a HooklineError has a `_tag` and a `message` too, so it would
  // pass for the error it carries and lose its status and retryable.
  cause instanceof AgentError.HooklineError && cause.error._tag === "InferenceFailed"
    ? cause.error // what toPromise throws: a fallback that rethrows keeps the fields
    : AgentError.isAgentError(cause) && cause._tag === "InferenceFailed"
    ? cause
    : AgentError.inferenceFailed(AgentError.messageOf(cause))

/**
 * The stream form of a `generate`: the reasoning as one delta, the text as one delta,
 * each tool call, then the response.
 *
 * @since 0.1.0
 * @category constructors
 */
export const streamFromGenerate = (generate: DriverShape["generate"]): DriverShape["stream"] =>
  DerivedStream.remember((request, options) =>
    Stream.unwrap(
      Effect.map(Effect.flatMap(generate(request, options), checked), (response): Stream.Stream<StreamPart> =>
        Stream.fromIterable<StreamPart>([
          ...(response.reasoning === undefined ? [] : [{ _tag: "ReasoningDelta" as const, text: response.reasoning }]),
          ...(response.text === "" ? [] : [{ _tag: "TextDelta" as const, text: response.text }]),
          ...response.toolCalls.map((toolCall) => ({ _tag: "ToolCall" as const, toolCall })),
          { _tag: "Finish", response },
        ])),
    ), generate)

/**
 * The response a stream ends with (its first `Finish`), checked like every answer;
 * fails if the stream ended without one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generateFromStream = (stream: DriverShape["stream"]): DriverShape["generate"] => (request, options) =>
  consume(stream(request, options), undefined)

/**
 * A driver from Effect functions; either form may be left out and is derived from
 * the other.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  impl: (
    | { readonly generate: DriverShape["generate"]; readonly stream?: DriverShape["stream"] | undefined }
    | { readonly generate?: DriverShape["generate"] | undefined; readonly stream: DriverShape["stream"] }
  ) & { readonly model?: ModelDescriptor | undefined },
): DriverShape => {
  const generate = impl.generate ?? generateFromStream(impl.stream as DriverShape["stream"])
  const stream = impl.stream ?? streamFromGenerate(generate)
  const model = modelOf(impl)
  return Object.freeze(model === undefined ? { generate, stream } : { generate, stream, model })
}

const isName = (u: unknown): u is string => typeof u === "string" && u !== "" && u.length <= 256

/**
 * The model a driver names (`DriverShape.model`), checked: a descriptor whose provider
 * or id is not a non-empty string (at most 256 characters), or a getter that throws, is
 * no descriptor (`undefined`).
 *
 * @since 0.1.0
 * @category getters
 */
export const modelOf = (driver: { readonly model?: unknown }): ModelDescriptor | undefined => {
  try {
    const model = driver.model as { readonly provider?: unknown; readonly id?: unknown; readonly server?: unknown } | undefined
    if (typeof model !== "object" || model === null) return undefined
    const { provider, id } = model
    if (!isName(provider) || !isName(id)) return undefined
    const server = model.server === undefined ? undefined : serverOf(model.server)
    return Object.freeze(server === undefined ? { provider, id } : { provider, id, server })
  } catch {
    return undefined
  }
}

// A server a descriptor names, checked: a host name (at most 256 characters) and a port
// from 1 to 65535, or no server.
const serverOf = (u: unknown): ModelServer | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  const { address, port } = u as { readonly address?: unknown; readonly port?: unknown }
  if (!isName(address)) return undefined
  if (port === undefined) return Object.freeze({ address })
  return Number.isSafeInteger(port) && (port as number) >= 1 && (port as number) <= 65535 ? Object.freeze({ address, port: port as number }) : undefined
}

/**
 * What the loop tells `AroundCall` about one model call, before it starts.
 *
 * @since 0.1.0
 * @category models
 */
export interface Attempt {
  /** The model of the driver that answers this call (a fallback's own), when it names one. */
  readonly model: ModelDescriptor | undefined
}

/**
 * A function the loop runs each model call through (each attempt, when wrap hooks hold
 * the call), told which model answers it before it starts. Set it around `next` in a
 * wrap hook (`Effect.provideService(Driver.AroundCall, f)`): the call runs in the
 * fiber and context of that `next`. Telemetry uses it to give each attempt under a
 * retry or a fallback a span naming its own model. Unset by default.
 *
 * @since 0.1.0
 * @category services
 */
export const AroundCall = Context.Reference<
  | (<E>(call: Effect.Effect<InferenceResponse, E>, attempt: Attempt) => Effect.Effect<InferenceResponse, E>)
  | undefined
>("@hookline/agent/Driver/AroundCall", { defaultValue: () => undefined })

type ResponseInput = Parameters<typeof InferenceResponse.make>[0]

// A field of an answer the driver may leave out, read once (a getter may throw: the
// check reports it).
const field = (u: object, key: string): unknown => (u as Record<string, unknown>)[key]

/**
 * A full response from the fields a Promise driver gave (absent ones take
 * `InferenceResponse.make`'s defaults), checked.
 */
const fromFields = (u: unknown): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return checked(u)
  if (DriverAnswer.isChecked(u)) return Effect.succeed(u as InferenceResponse)
  try {
    const toolCalls = field(u, "toolCalls")
    const filled = {
      text: field(u, "text") ?? "",
      toolCalls: toolCalls ?? [],
      usage: field(u, "usage") ?? { inputTokens: 0, outputTokens: 0 },
      finishReason: field(u, "finishReason") ?? (Array.isArray(toolCalls) && toolCalls.length > 0 ? "tool-calls" : "stop"),
      modelId: field(u, "modelId") ?? "unknown",
      metadata: field(u, "metadata") ?? {},
      reasoning: field(u, "reasoning"),
    }
    return checked(filled)
  } catch (cause) {
    return Effect.fail(AgentError.inferenceFailed(`the model's answer is invalid: reading it threw: ${AgentError.messageOf(cause)}`))
  }
}

const checked = (u: unknown): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> => {
  const out = DriverAnswer.response(u)
  return DriverAnswer.isFailure(out) ? Effect.fail(out) : Effect.succeed(out)
}

const isAsyncIterable = (u: unknown): u is AsyncIterable<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === "function"

/**
 * Lifts a Promise-based driver. `generate` may return a full response or the fields
 * of one; `stream`, if given, yields parts and ends at its first `Finish`. Whatever
 * they throw becomes `InferenceFailed`, and so does an answer that is not a response
 * (checked at this boundary, naming the path of the first bad value); the signal
 * aborts with the run.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPromise = (impl: {
  readonly generate?: ((request: InferenceRequest, options: CallOptions) => Promise<ResponseInput>) | undefined
  readonly stream?: ((request: InferenceRequest, options: CallOptions) => AsyncIterable<StreamPart>) | undefined
  /** The model it calls (`DriverShape.model`). */
  readonly model?: ModelDescriptor | undefined
}): DriverShape => {
  const { generate, stream } = impl
  if (generate === undefined && stream === undefined) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("driver", "expected generate or stream"))
  }
  return make({
    generate: generate === undefined ? undefined : settledGenerate((request, options) => answered(generate, request, options)),
    stream: stream === undefined ? undefined : (request, options) =>
      Stream.unwrap(Effect.flatMap(
        Effect.acquireRelease(Effect.sync(() => callOf(options)), (call, exit) =>
          Effect.sync(() => (Exit.hasInterrupts(exit) ? interrupt(call) : end(call)))),
        (call) =>
          Effect.try({ try: () => stream(request, call), catch: inferenceFailed }).pipe(Effect.flatMap((parts) =>
            isAsyncIterable(parts)
              ? Effect.succeed(Stream.fromAsyncIterable(parts as AsyncIterable<StreamPart>, inferenceFailed))
              : Effect.fail(AgentError.inferenceFailed("the model's stream is not an async iterable"))
          )),
      )),
    model: impl.model,
  } as Parameters<typeof make>[0])
}

// The signal a call gets aborts when the run's does or when the call is interrupted,
// and is made only if the driver reads it: the loop's own options carry one signal for
// the whole run (RunCallOptions); other options get one for the call (CallSignal).
type Call = RunCallOptions | CallSignal

const callOf = (options: CallOptions): Call => (options instanceof RunCallOptions ? options : new CallSignal(options))
const end = (call: Call): void => {
  if (call instanceof CallSignal) call.end()
}
const interrupt = (call: Call): void => {
  if (call instanceof CallSignal) call.interrupt()
  else call.abortCall()
}

// The generate functions `fromPromise` made: each call's Effect already ends as a
// checked response or `InferenceFailed`, never a defect, so `generateChecked` takes it
// as it is (no check again, no catch per call).
const settledGenerates = new WeakSet<DriverShape["generate"]>()

const settledGenerate = (generate: DriverShape["generate"]): DriverShape["generate"] => {
  settledGenerates.add(generate)
  return generate
}

// One model call of a Promise driver, bridged into the fiber in one `Effect.callback`:
// the answer is checked where the Promise settles (no `flatMap` per call), and a throw
// while checking it is `InferenceFailed`, as a defect would be in `generateChecked`.
// (Effect.tryPromise would make an AbortController per call, used or not.)
const answered = (
  generate: (request: InferenceRequest, options: CallOptions) => PromiseLike<unknown>,
  request: InferenceRequest,
  options: CallOptions,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> =>
  Effect.callback<InferenceResponse, AgentError.InferenceFailed>((resume) => {
    const call = callOf(options)
    let pending: PromiseLike<unknown>
    try {
      // A driver that returns a value, not a Promise, still answers (the answer is checked next).
      pending = Promise.resolve(generate(request, call))
    } catch (e) {
      end(call)
      resume(Effect.fail(inferenceFailed(e)))
      return
    }
    pending.then(
      (a) => {
        end(call)
        resume(checkedAnswer(a))
      },
      (e) => {
        end(call)
        resume(Effect.fail(inferenceFailed(e)))
      },
    )
    return call instanceof RunCallOptions ? call.onCallInterrupted : Effect.sync(() => interrupt(call))
  })

const checkedAnswer = (u: unknown): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> => {
  try {
    return fromFields(u)
  } catch (e) {
    return Effect.fail(inferenceFailed(e))
  }
}

/**
 * A layer that provides the driver.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (driver: DriverShape): Layer.Layer<Driver> => Layer.succeed(Driver, driver)

// A failure or defect of a model call as InferenceFailed; interruption (an abort)
// propagates.
const settle = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<A, AgentError.InferenceFailed> =>
  Effect.catchCause(effect, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const error = cause.reasons.find(Cause.isFailReason)
    return Effect.fail(inferenceFailed(error === undefined ? Cause.squash(cause) : error.error))
  })

const callThrew = (what: string, cause: unknown) =>
  Effect.fail(AgentError.inferenceFailed(`the driver's ${what} threw: ${AgentError.messageOf(cause)}`))

/**
 * One model call through `generate`, as the loop makes it: whatever the driver does
 * (throws, returns something that is not an Effect, fails, dies, answers garbage)
 * ends as a checked response or `InferenceFailed`; interruption propagates.
 *
 * @since 0.1.0
 * @category running
 */
export const generateChecked = (
  driver: DriverShape,
  request: InferenceRequest,
  options: CallOptions,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> => {
  let call: unknown
  let generate: DriverShape["generate"]
  try {
    // Read once (a getter could give another function the second time), called on its driver.
    generate = driver.generate
    if (typeof generate !== "function") return Effect.fail(AgentError.inferenceFailed("the driver's generate is not a function"))
    call = generate.call(driver, request, options)
  } catch (cause) {
    return callThrew("generate", cause)
  }
  // A `fromPromise` call is always an Effect (`answered`): no type test for it.
  if (settledGenerates.has(generate)) return call as Effect.Effect<InferenceResponse, AgentError.InferenceFailed>
  if (!Effect.isEffect(call)) return Effect.fail(AgentError.inferenceFailed("the driver's generate did not return an Effect"))
  return settle(Effect.flatMap(call as Effect.Effect<unknown, unknown>, checked))
}

/**
 * One model call through `stream`, as the loop makes it: each part is checked, the
 * stream ends at its first `Finish` (later parts are not read), `onText` gets each
 * text delta, and the deltas must add up to the response's text (a stream with no
 * delta gives `onText` the whole text at its end). `onReasoning` gets the reasoning
 * deltas the same way, held to the response's reasoning alike. A bad part, a stream
 * without a `Finish`, or text or reasoning that disagrees is `InferenceFailed`.
 *
 * @since 0.1.0
 * @category running
 */
export const streamChecked = (
  driver: DriverShape,
  request: InferenceRequest,
  options: CallOptions,
  onText: ((text: string) => void) | undefined,
  onReasoning?: ((text: string) => void) | undefined,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> => {
  let parts: unknown
  try {
    parts = driver.stream(request, options)
  } catch (cause) {
    return callThrew("stream", cause)
  }
  if (!Stream.isStream(parts)) return Effect.fail(AgentError.inferenceFailed("the driver's stream did not return a Stream"))
  return settle(consume(parts as Stream.Stream<unknown, unknown>, onText, onReasoning))
}

const consume = (
  parts: Stream.Stream<unknown, unknown>,
  onText: ((text: string) => void) | undefined,
  onReasoning?: ((text: string) => void) | undefined,
): Effect.Effect<InferenceResponse, AgentError.InferenceFailed> =>
  Effect.suspend(() => {
    let index = 0
    let streamed = ""
    let deltas = 0
    let reasoned = ""
    let reasoningDeltas = 0
    let response: InferenceResponse | undefined
    let bad: AgentError.InferenceFailed | undefined
    return Stream.runForEachWhile(parts, (u) =>
      Effect.sync(() => {
        const part = DriverAnswer.part(u, index++)
        if (DriverAnswer.isFailure(part)) {
          bad = part
          return false
        }
        if (part._tag === "TextDelta") {
          streamed += part.text
          deltas++
          onText?.(part.text)
        } else if (part._tag === "ReasoningDelta") {
          reasoned += part.text
          reasoningDeltas++
          onReasoning?.(part.text)
        } else if (part._tag === "Finish") {
          response = part.response
          return false
        }
        return true
      })).pipe(
        settle,
        Effect.flatMap(() => {
          if (bad !== undefined) return Effect.fail(bad)
          if (response === undefined) return Effect.fail(AgentError.inferenceFailed("the model's stream ended without a response"))
          const reasoning = response.reasoning ?? ""
          if (reasoningDeltas === 0) {
            if (reasoning !== "") onReasoning?.(reasoning)
          } else if (reasoned !== reasoning) {
            return Effect.fail(AgentError.inferenceFailed(
              `the model's stream is invalid: its reasoning deltas (${reasoned.length} characters) are not the reasoning of its Finish (${reasoning.length} characters)`,
            ))
          }
          if (deltas === 0) {
            if (response.text !== "") onText?.(response.text)
          } else if (streamed !== response.text) {
            return Effect.fail(AgentError.inferenceFailed(
              `the model's stream is invalid: its text deltas (${streamed.length} characters) are not the text of its Finish (${response.text.length} characters)`,
            ))
          }
          return Effect.succeed(response)
        }),
      )
  })

/**
 * A driver's calls as a Promise user makes them: `generate` resolves with the
 * response, `stream` is an `AsyncIterable` of parts (breaking out of the loop ends
 * the call); a failure is a thrown `HooklineError` whose `.error` is the
 * `InferenceFailed`. The signal, if given, aborts the call.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromiseDriver {
  readonly generate: (request: InferenceRequest, options?: Partial<CallOptions>) => Promise<InferenceResponse>
  readonly stream: (request: InferenceRequest, options?: Partial<CallOptions>) => AsyncIterable<StreamPart>
}

const noSignal = new AbortController().signal

/**
 * The Promise form of a driver, to call a second model from a hook or to wrap a
 * driver without Effect; `fromPromise(toPromise(d))` behaves as `d`.
 *
 * ```ts
 * const primary = Driver.toPromise(main)
 * const backup = Driver.toPromise(spare)
 * const withFallback = Driver.fromPromise({
 *   generate: (request, options) => primary.generate(request, options).catch(() => backup.generate(request, options)),
 * })
 * ```
 *
 * @since 0.1.0
 * @category conversions
 */
export const toPromise = (driver: DriverShape): PromiseDriver =>
  Object.freeze({
    generate: async (request: InferenceRequest, options?: Partial<CallOptions>) => {
      const signal = options?.signal ?? noSignal
      const exit = await Effect.runPromiseExit(driver.generate(request, { signal }), { signal })
      if (Exit.isSuccess(exit)) return exit.value
      throw failureOf(exit.cause)
    },
    stream: (request: InferenceRequest, options?: Partial<CallOptions>) =>
      Stream.toAsyncIterable(
        driver.stream(request, { signal: options?.signal ?? noSignal }).pipe(
          Stream.mapError((error) => new AgentError.HooklineError(error)),
        ),
      ),
  })

const failureOf = (cause: Cause.Cause<AgentError.InferenceFailed>): AgentError.HooklineError => {
  const error = Cause.squash(cause)
  return error instanceof AgentError.HooklineError
    ? error
    : new AgentError.HooklineError(inferenceFailed(error))
}
