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

/**
 * What a driver gets besides the request: the signal that aborts the call.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  readonly signal: AbortSignal
}

/**
 * One part of a streamed answer. A stream ends with exactly one `Finish`, which
 * carries the whole response (the same response `generate` would give).
 *
 * @since 0.1.0
 * @category models
 */
export type StreamPart =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "ToolCall"; readonly toolCall: ToolCall }
  | { readonly _tag: "Finish"; readonly response: InferenceResponse }

/**
 * @since 0.1.0
 * @category models
 */
export interface DriverShape {
  readonly generate: (
    request: InferenceRequest,
    options: CallOptions,
  ) => Effect.Effect<InferenceResponse, AgentError.InferenceFailed>
  readonly stream: (request: InferenceRequest, options: CallOptions) => Stream.Stream<StreamPart, AgentError.InferenceFailed>
}

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
  AgentError.isAgentError(cause) && cause._tag === "InferenceFailed"
    ? cause
    : cause instanceof AgentError.HooklineError && cause.error._tag === "InferenceFailed"
    ? cause.error // what toPromise throws: a fallback that rethrows keeps the fields
    : AgentError.inferenceFailed(AgentError.messageOf(cause))

/**
 * The stream form of a `generate`: the text as one delta, each tool call, then the
 * response.
 *
 * @since 0.1.0
 * @category constructors
 */
export const streamFromGenerate = (generate: DriverShape["generate"]): DriverShape["stream"] =>
  DerivedStream.remember((request, options) =>
    Stream.unwrap(
      Effect.map(generate(request, options), (response): Stream.Stream<StreamPart> =>
        Stream.fromIterable<StreamPart>([
          ...(response.text === "" ? [] : [{ _tag: "TextDelta" as const, text: response.text }]),
          ...response.toolCalls.map((toolCall) => ({ _tag: "ToolCall" as const, toolCall })),
          { _tag: "Finish", response },
        ])),
    ), generate)

/**
 * The response a stream ends with; fails if the stream ended without one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generateFromStream = (stream: DriverShape["stream"]): DriverShape["generate"] => (request, options) =>
  Effect.flatMap(
    Stream.runFold(stream(request, options), () => undefined as InferenceResponse | undefined, (last, part) =>
      part._tag === "Finish" ? part.response : last),
    (response) =>
      response === undefined
        ? Effect.fail(AgentError.inferenceFailed("the model's stream ended without a response"))
        : Effect.succeed(response),
  )

/**
 * A driver from Effect functions; either form may be left out and is derived from
 * the other.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  impl:
    | { readonly generate: DriverShape["generate"]; readonly stream?: DriverShape["stream"] | undefined }
    | { readonly generate?: DriverShape["generate"] | undefined; readonly stream: DriverShape["stream"] },
): DriverShape => {
  const generate = impl.generate ?? generateFromStream(impl.stream as DriverShape["stream"])
  const stream = impl.stream ?? streamFromGenerate(generate)
  return Object.freeze({ generate, stream })
}

type ResponseInput = Parameters<typeof InferenceResponse.make>[0]

/**
 * Lifts a Promise-based driver. `generate` may return a full response or the fields
 * of one; `stream`, if given, yields parts and must end with a `Finish`. Whatever they
 * throw becomes `InferenceFailed`; the signal aborts with the run.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPromise = (impl: {
  readonly generate?: ((request: InferenceRequest, options: CallOptions) => Promise<ResponseInput>) | undefined
  readonly stream?: ((request: InferenceRequest, options: CallOptions) => AsyncIterable<StreamPart>) | undefined
}): DriverShape => {
  const { generate, stream } = impl
  if (generate === undefined && stream === undefined) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("driver", "expected generate or stream"))
  }
  return make({
    generate: generate === undefined ? undefined : (request, options) =>
      promised(options, (callOptions) => generate(request, callOptions)).pipe(Effect.map(InferenceResponse.make)),
    stream: stream === undefined ? undefined : (request, options) =>
      Stream.unwrap(Effect.map(
        Effect.acquireRelease(Effect.sync(() => callOf(options)), (call, exit) =>
          Effect.sync(() => (Exit.hasInterrupts(exit) ? interrupt(call) : end(call)))),
        (call) => Stream.fromAsyncIterable(stream(request, call), inferenceFailed),
      )),
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

// Effect.tryPromise would make an AbortController per call, used or not.
const promised = <A>(options: CallOptions, start: (options: CallOptions) => PromiseLike<A>): Effect.Effect<A, AgentError.InferenceFailed> =>
  Effect.callback<A, AgentError.InferenceFailed>((resume) => {
    const call = callOf(options)
    try {
      start(call).then(
        (a) => {
          end(call)
          resume(Effect.succeed(a))
        },
        (e) => {
          end(call)
          resume(Effect.fail(inferenceFailed(e)))
        },
      )
    } catch (e) {
      end(call)
      resume(Effect.fail(inferenceFailed(e)))
      return
    }
    return Effect.sync(() => interrupt(call))
  })

/**
 * A layer that provides the driver.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (driver: DriverShape): Layer.Layer<Driver> => Layer.succeed(Driver, driver)

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
