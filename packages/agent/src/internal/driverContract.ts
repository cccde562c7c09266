// The driver's contract, as a types-only leaf: the call signal (callSignal.ts) and the
// derived stream (derivedStream.ts) name these types without importing Driver.ts, which
// imports them. Driver.ts is the public face and re-exports them.
import type { AgentError, InferenceRequest, InferenceResponse, ToolCall } from "@hookline/core"
import type { Effect, Stream } from "effect"

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
 * One part of a streamed answer. A stream ends at its first `Finish`, which carries
 * the whole response (the same response `generate` would give); parts after it are
 * not read. The text deltas, joined, must be the response's text; the reasoning deltas,
 * joined, its reasoning (a stream with none of a kind may leave it to the `Finish`).
 *
 * @since 0.1.0
 * @category models
 */
export type StreamPart =
  | { readonly _tag: "TextDelta"; readonly text: string }
  /** A piece of the model's reasoning (`InferenceResponse.reasoning`). */
  | { readonly _tag: "ReasoningDelta"; readonly text: string }
  | { readonly _tag: "ToolCall"; readonly toolCall: ToolCall }
  | { readonly _tag: "Finish"; readonly response: InferenceResponse }

/**
 * The model a driver calls, named before any call starts (telemetry names a span by
 * it, a fallback's attempts each name their own): `provider` as the OpenTelemetry GenAI
 * conventions spell it (`openai`, `anthropic`), `id` the model's id.
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelDescriptor {
  readonly provider: string
  readonly id: string
  /**
   * The server the driver sends its calls to, when it knows it: host name or address, and
   * port (the conventions' `server.address`, `server.port`). Never a path, query or
   * credentials.
   */
  readonly server?: ModelServer | undefined
}

/**
 * Where a driver's model calls go (`ModelDescriptor.server`).
 *
 * @since 0.1.0
 * @category models
 */
export interface ModelServer {
  readonly address: string
  readonly port?: number | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface DriverShape {
  /** The model this driver calls, when it knows it (read with `Driver.modelOf`). */
  readonly model?: ModelDescriptor | undefined
  readonly generate: (
    request: InferenceRequest,
    options: CallOptions,
  ) => Effect.Effect<InferenceResponse, AgentError.InferenceFailed>
  readonly stream: (request: InferenceRequest, options: CallOptions) => Stream.Stream<StreamPart, AgentError.InferenceFailed>
}
