// The AI SDK's language model specification v3, as the installed `ai` types it (ai 6
// drives v3; ai 7 drives v4 and adapts v3), so one model serves both majors without a
// direct dependency on @ai-sdk/provider.
import type { LanguageModel } from "ai"

/** A language model of specification v3. */
export type ModelV3 = Extract<LanguageModel, { readonly specificationVersion: "v3" }>
/** What `doStream` and `doGenerate` receive. */
export type CallOptions = Parameters<ModelV3["doStream"]>[0]
/** One part of a `doStream` stream. */
export type StreamPart = Awaited<ReturnType<ModelV3["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never
/** What `doGenerate` answers. */
export type GenerateResult = Awaited<ReturnType<ModelV3["doGenerate"]>>
/** One part of a `doGenerate` answer's content. */
export type ContentPart = GenerateResult["content"][number]
/** A stream's finish part: its usage and finish reason. */
export type FinishPart = Extract<StreamPart, { readonly type: "finish" }>
