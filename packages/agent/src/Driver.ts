/**
 * The model, as an Effect service: from a request to a response, in one piece
 * (`generate`) or as a stream of parts (`stream`). Real providers come through
 * `@hookline/ai-sdk`; tests use `ScriptedDriver` from `@hookline/testing`.
 *
 * @since 0.1.0
 */
import { AgentError, InferenceResponse, type InferenceRequest, type ToolCall } from "@hookline/core"
import { Context, Effect, Exit, Layer, Stream } from "effect"
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
 * The driver service.
 *
 * @since 0.1.0
 * @category services
 */
export class Driver extends Context.Service<Driver, DriverShape>()("@hookline/agent/Driver") {}

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
