/**
 * A hookline driver over the Vercel AI SDK (ai 6 or 7): any AI SDK `LanguageModel`
 * (OpenAI, Anthropic, a gateway, a local OpenAI-compatible server…) becomes a
 * hookline model. The SDK only calls the model: tools are sent without `execute`, so
 * the SDK returns the tool calls and the hookline loop (and its hooks) runs them.
 * Models of specification v2 and v3 run on ai 6; v2, v3 and v4 on ai 7. The model's
 * reasoning, where it gives it, is the response's `reasoning` (streamed as
 * `ReasoningDelta` parts).
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
  type Message,
} from "@hookline/core"
import {
  APICallError,
  generateText,
  jsonSchema,
  Output,
  RetryError,
  streamText,
  tool,
  type FinishReason as SdkFinishReason,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
  wrapLanguageModel,
} from "ai"
import { heldArguments, holdBack } from "./internal/deepToolInput.js"
import * as ModelVersion from "./internal/modelVersion.js"
import * as Server from "./internal/server.js"
import * as Sdk from "./internal/sdk.js"

/** The AI SDK's provider options: per provider, a JSON object. */
type ProviderOptions = NonNullable<Parameters<typeof generateText>[0]["providerOptions"]>
/** The AI SDK's telemetry settings, as the installed major types them. */
type TelemetrySettings = Sdk.TelemetrySettings

/**
 * @since 0.1.0
 * @category models
 */
export interface AiSdkDriverOptions {
  /**
   * Provider options sent with every call (merged under the request's own
   * `options.providerOptions`, which win per provider key).
   */
  readonly providerOptions?: ProviderOptions | undefined
  /**
   * Retries the AI SDK makes itself. Default 0: the hookline loop and its OnError
   * hooks own retries, and each SDK retry would be invisible to them.
   */
  readonly maxRetries?: number | undefined
  /** HTTP headers sent with every call, as the AI SDK's `headers` call setting. */
  readonly headers?: Readonly<Record<string, string | undefined>> | undefined
  /**
   * The AI SDK's telemetry settings, passed through as given (as `telemetry` on ai 7,
   * `experimental_telemetry` on ai 6). On ai 7 they emit nothing unless a telemetry
   * integration is registered (`registerTelemetry`, or `integrations` here). Without
   * them the driver turns the SDK's telemetry off (`isEnabled: false`): hookline's
   * `UseTelemetry` (`@hookline/otel`) reports each call, and a registered integration
   * would report it twice.
   */
  readonly telemetry?: TelemetrySettings | undefined
}


/**
 * The model specification versions the driver drives with the installed `ai`:
 * `["v2", "v3"]` on ai 6, `["v2", "v3", "v4"]` on ai 7.
 *
 * @since 0.1.0
 * @category models
 */
export const supportedModelVersions: ReadonlyArray<string> = Sdk.modelVersions

/**
 * The driver for a model. Throws `HooklineError(InvalidConfiguration)` at `model`, before
 * any call, for a model whose specification version the installed `ai` does not drive
 * (see `supportedModelVersions`), naming that version and the supported ones.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  model: LanguageModel,
  options: AiSdkDriverOptions = {},
): Driver.DriverShape & { readonly modelId: string; readonly model: Driver.ModelDescriptor } => {
  ModelVersion.check(model)
  // The model's id, so a failed attempt of a fallback names the model that failed; and
  // the model named before any call (telemetry names its spans by it).
  return Object.freeze({ ...driverOf(model, options), modelId: typeof model === "string" ? model : model.modelId, model: descriptorOf(model) })
}

/**
 * The provider as the GenAI conventions name it: the AI SDK's provider id up to its
 * first dot (`openai.responses` is `openai`); a gateway id (`anthropic/claude-…`) names
 * its provider before the slash.
 */
const descriptorOf = (model: LanguageModel): Driver.ModelDescriptor => {
  if (typeof model === "string") {
    const slash = model.indexOf("/")
    return Object.freeze(slash > 0 ? { provider: model.slice(0, slash), id: model.slice(slash + 1) } : { provider: "gateway", id: model })
  }
  const provider = typeof model.provider === "string" && model.provider !== "" ? model.provider.split(".")[0] as string : "unknown"
  // Where its calls go (server.address/port on telemetry's chat spans): internal/server.ts.
  const server = Server.of(model)
  return Object.freeze(server === undefined ? { provider, id: model.modelId } : { provider, id: model.modelId, server })
}

const driverOf = (model: LanguageModel, options: AiSdkDriverOptions): Driver.DriverShape =>
  Driver.fromPromise({
    generate: async (request, { signal }) => {
      const held = new Map<string, string>()
      const result = await callSafely(() => generateText({ ...callArguments(guarded(model, held), request, signal, options) }))
      // The step's own response, metadata and reasoning (the result's copies are deprecated on ai 7).
      const step = result.steps.at(-1)
      return InferenceResponse.make({
        text: result.text,
        reasoning: step?.reasoningText,
        toolCalls: result.toolCalls.map((call) => toolCallOf(call.toolCallId, call.toolName, call.input, held)),
        usage: usageOf(Sdk.callUsageOf(result)),
        finishReason: finishReasonOf(result.finishReason),
        modelId: step?.response.modelId ?? modelIdOf(model),
        metadata: metadataOf(step?.response.id, step?.providerMetadata),
      })
    },
    stream: (request, { signal }) => streamParts(model, request, signal, options),
  })

async function* streamParts(
  model: LanguageModel,
  request: InferenceRequest,
  signal: AbortSignal,
  options: AiSdkDriverOptions,
): AsyncGenerator<Driver.StreamPart> {
  const held = new Map<string, string>()
  const result = streamText({
    ...callArguments(guarded(model, held), request, signal, options),
    // Errors come back as `error` parts (thrown below); the SDK's default logs them.
    onError: () => {},
  })
  let text = ""
  let reasoning = ""
  const toolCalls: Array<ToolCall> = []
  let usage: Usage.Usage = Usage.empty
  let finishReason: InferenceResponse.FinishReason = "other"
  let modelId = modelIdOf(model)
  let responseId: string | undefined
  let providerMetadata: unknown
  let finished = false
  try {
    for await (const part of Sdk.partsOf(result)) {
      switch (part.type) {
        case "text-delta":
          if (part.text !== "") {
            text += part.text
            yield { _tag: "TextDelta", text: part.text }
          }
          break
        // reasoning-start and -end only frame the deltas: the parts of one answer's reasoning join into one text.
        case "reasoning-delta":
          if (part.text !== "") {
            reasoning += part.text
            yield { _tag: "ReasoningDelta", text: part.text }
          }
          break
        case "tool-call": {
          const toolCall = toolCallOf(part.toolCallId, part.toolName, part.input, held)
          toolCalls.push(toolCall)
          yield { _tag: "ToolCall", toolCall }
          break
        }
        case "finish-step":
          modelId = part.response.modelId
          responseId = part.response.id
          providerMetadata = part.providerMetadata
          break
        case "finish":
          usage = usageOf(part.totalUsage)
          finishReason = finishReasonOf(part.finishReason)
          finished = true
          break
        case "error":
          throw part.error
        case "abort":
          throw AgentError.inferenceFailed("the model call was aborted")
        default:
          break
      }
    }
  } catch (error) {
    throw toInferenceFailed(error)
  }
  if (!finished) throw AgentError.inferenceFailed("the model's stream ended without a finish")
  yield {
    _tag: "Finish",
    response: InferenceResponse.make({
      text,
      reasoning,
      toolCalls,
      usage,
      finishReason,
      modelId,
      metadata: metadataOf(responseId, providerMetadata),
    }),
  }
}

const modelIdOf = (model: LanguageModel): string => (typeof model === "string" ? model : model.modelId)

// The model behind a middleware that keeps inputs too deep for the SDK away from it
// (deepToolInput.ts). ai 7 wraps a model of any version it drives, ai 6 a v3 model only
// (its v2 adapter is internal). A model given by its id (a string) is resolved by the SDK.
const guarded = (model: LanguageModel, held: Map<string, string>): LanguageModel =>
  typeof model === "object" && (Sdk.major === 7 || model.specificationVersion === "v3")
    ? wrapLanguageModel({ model: model as Parameters<typeof wrapLanguageModel>[0]["model"], middleware: holdBack(held) })
    : model

// A held-back input goes to the loop as the model sent it: the loop's boundary answers
// it with ToolArgumentsInvalid.
const toolCallOf = (id: string, name: string, input: unknown, held: ReadonlyMap<string, string>): ToolCall => {
  const text = held.get(id)
  return ToolCall.make({ id, name, arguments: (text === undefined ? toJson(input) : heldArguments(text)) as JsonValue })
}

// The arguments generateText and streamText share.
const callArguments = (model: LanguageModel, request: InferenceRequest, signal: AbortSignal, options: AiSdkDriverOptions) => {
  const o = request.options
  const providerOptions = mergeProviderOptions(options.providerOptions, o.providerOptions as ProviderOptions | undefined)
  const tools = toolsOf(request)
  const format = request.responseFormat
  return {
    model,
    ...(request.systemPrompt === "" ? {} : Sdk.instructionsArgument(request.systemPrompt)),
    messages: toModelMessages(request.messages),
    // hookline's own system messages (context config, hooks) are trusted input.
    allowSystemInMessages: true,
    ...(tools === undefined ? {} : { tools }),
    ...(format?.type === "json" ? { output: jsonOutput(format) } : {}),
    ...(o.temperature === undefined ? {} : { temperature: o.temperature }),
    ...(o.topP === undefined ? {} : { topP: o.topP }),
    ...(o.topK === undefined ? {} : { topK: o.topK }),
    ...(o.maxOutputTokens === undefined ? {} : { maxOutputTokens: o.maxOutputTokens }),
    ...(o.seed === undefined ? {} : { seed: o.seed }),
    ...(o.stopSequences === undefined ? {} : { stopSequences: [...o.stopSequences] }),
    ...(providerOptions === undefined ? {} : { providerOptions }),
    maxRetries: options.maxRetries ?? 0,
    ...(options.headers === undefined ? {} : { headers: { ...options.headers } }),
    // No settings: the SDK's telemetry off (hookline's UseTelemetry reports the call; docs/telemetry.md).
    ...Sdk.telemetryArgument(Sdk.callTelemetry(options.telemetry)),
    abortSignal: signal,
  }
}

const mergeProviderOptions = (
  base: ProviderOptions | undefined,
  own: ProviderOptions | undefined,
): ProviderOptions | undefined => {
  if (base === undefined) return own
  if (own === undefined) return base
  // Defined, never assigned: a provider key is data, even `__proto__` (options may come from JSON).
  const mergedOwn = Object.entries(own).map(([provider, values]) =>
    [provider, { ...(Object.hasOwn(base, provider) ? base[provider] : {}), ...values }] as const
  )
  return { ...base, ...Object.fromEntries(mergedOwn) } as ProviderOptions
}

/**
 * A JSON response format for the provider (OpenAI `response_format: json_schema` and
 * the like) that keeps the text as the model wrote it: the SDK neither parses nor
 * validates it, hookline's own decoding does (so a bad answer is a DecodeFailed there,
 * not an SDK error here).
 */
const jsonOutput = (format: Extract<NonNullable<InferenceRequest["responseFormat"]>, { type: "json" }>): Output.Output<string, string> => ({
  ...Output.text(),
  name: "json",
  responseFormat: Promise.resolve({
    type: "json" as const,
    ...(format.schema === undefined ? {} : { schema: format.schema as never }),
    ...(format.name === undefined ? {} : { name: format.name }),
    ...(format.description === undefined ? {} : { description: format.description }),
  }),
})

/**
 * The request's tools as AI SDK tools WITHOUT `execute`: the SDK returns the calls.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toolsOf = (request: InferenceRequest): ToolSet | undefined => {
  if (request.tools.length === 0) return undefined
  const tools: ToolSet = {}
  for (const definition of request.tools) {
    tools[definition.name] = tool({
      description: definition.description,
      inputSchema: jsonSchema(definition.parameters as never),
    })
  }
  return tools
}

/**
 * hookline messages as AI SDK `ModelMessage`s.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toModelMessages = (messages: Iterable<Message>): Array<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (const message of messages) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content })
        break
      case "user":
        out.push({ role: "user", content: message.content })
        break
      case "assistant":
        out.push(
          message.toolCalls.length === 0
            ? { role: "assistant", content: message.content }
            : {
              role: "assistant",
              content: [
                ...(message.content === "" ? [] : [{ type: "text" as const, text: message.content }]),
                ...message.toolCalls.map((call) => ({
                  type: "tool-call" as const,
                  toolCallId: call.id,
                  toolName: call.name,
                  input: call.arguments,
                })),
              ],
            },
        )
        break
      case "tool": {
        const part = {
          type: "tool-result" as const,
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: { type: message.isError ? "error-text" as const : "text" as const, value: message.content },
        }
        // Consecutive results (of one assistant turn) go in one tool message.
        const last = out[out.length - 1]
        if (last !== undefined && last.role === "tool") last.content.push(part)
        else out.push({ role: "tool", content: [part] })
        break
      }
    }
  }
  return out
}

// A count the provider reported, or 0 (a provider's JSON may hold anything).
const countOf = (n: unknown): number => (typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0)

/**
 * The usage fields the driver reads, as both majors give them: ai 7's
 * `LanguageModelUsage` has the details only; ai 6's also the deprecated flat fields.
 *
 * @since 0.1.0
 * @category models
 */
export interface SdkUsage {
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
  readonly inputTokenDetails?: { readonly cacheReadTokens?: number | undefined } | undefined
  readonly outputTokenDetails?: { readonly reasoningTokens?: number | undefined } | undefined
  /** ai 6 only (deprecated there): `inputTokenDetails.cacheReadTokens`. */
  readonly cachedInputTokens?: number | undefined
  /** ai 6 only (deprecated there): `outputTokenDetails.reasoningTokens`. */
  readonly reasoningTokens?: number | undefined
}

/**
 * The AI SDK's usage (ai 6 or 7) as hookline's: input and output tokens, the input
 * tokens read from the provider's cache (`inputTokenDetails.cacheReadTokens`, or ai 6's
 * deprecated `cachedInputTokens`) and the reasoning tokens
 * (`outputTokenDetails.reasoningTokens`, or ai 6's deprecated `reasoningTokens`). Details
 * are parts of the totals, so they are capped by them.
 *
 * @since 0.1.0
 * @category conversions
 */
export const usageOf = (usage: SdkUsage | undefined): Usage.Usage => {
  if (usage === undefined) return Usage.empty
  const input = countOf(usage.inputTokens)
  const output = countOf(usage.outputTokens)
  const cached = countOf(usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens)
  const reasoning = countOf(usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens)
  return Usage.make(input, output, { cachedInputTokens: Math.min(cached, input), reasoningTokens: Math.min(reasoning, output) })
}

/**
 * The AI SDK's finish reason as hookline's (anything unknown is "other").
 *
 * @since 0.1.0
 * @category conversions
 */
export const finishReasonOf = (reason: SdkFinishReason | string | undefined): InferenceResponse.FinishReason => {
  switch (reason) {
    case "stop":
    case "length":
    case "content-filter":
    case "tool-calls":
    case "error":
    case "other":
      return reason
    default:
      return "other"
  }
}

const metadataOf = (responseId: string | undefined, providerMetadata: unknown) => {
  const metadata: Record<string, JsonValue> = {}
  if (responseId !== undefined) metadata["responseId"] = responseId
  const provider = providerMetadata === undefined ? undefined : toJsonOrUndefined(providerMetadata)
  if (provider !== undefined) metadata["providerMetadata"] = provider
  return metadata
}

const toJsonOrUndefined = (u: unknown): JsonValue | undefined => {
  try {
    const text = JSON.stringify(u)
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue)
  } catch {
    return undefined
  }
}

const toJson = (u: unknown): JsonValue => toJsonOrUndefined(u) ?? {}

const callSafely = async <A>(f: () => Promise<A>): Promise<A> => {
  try {
    return await f()
  } catch (error) {
    throw toInferenceFailed(error)
  }
}

/**
 * Any error of a model call as `InferenceFailed`, with the HTTP status and whether a
 * retry may help. Never carries the request's headers, body, URL or the API key: only
 * the provider's error message, with anything that looks like a key redacted.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toInferenceFailed = (error: unknown): AgentError.InferenceFailed => {
  if (AgentError.isAgentError(error) && error._tag === "InferenceFailed") return error
  const cause = RetryError.isInstance(error) ? error.lastError : error
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode
    return AgentError.inferenceFailed(
      redact(status === undefined ? `model call failed: ${cause.message}` : `model call failed (HTTP ${status}): ${cause.message}`),
      { status, retryable: cause.isRetryable, retryAfterMs: retryAfterOf(cause.responseHeaders) },
    )
  }
  if (cause instanceof Error && cause.name === "AbortError") return AgentError.inferenceFailed("the model call was aborted")
  const name = cause instanceof Error && cause.name !== "Error" ? `${cause.name}: ` : ""
  return AgentError.inferenceFailed(redact(`model call failed: ${name}${AgentError.messageOf(cause)}`))
}

/**
 * How long a provider asked to wait, in ms, from its response headers:
 * `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an HTTP date.
 * Unreadable, negative or absent: `undefined`.
 *
 * @since 0.1.0
 * @category conversions
 */
export const retryAfterOf = (headers: Readonly<Record<string, string>> | undefined, now: number = Date.now()): number | undefined => {
  if (headers === undefined) return undefined
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  const ms = Number.parseFloat(lower["retry-after-ms"] ?? "")
  if (Number.isFinite(ms) && ms >= 0) return ms
  const value = lower["retry-after"]
  if (value === undefined) return undefined
  const seconds = Number(value.trim())
  if (value.trim() !== "" && Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

// API keys and bearer tokens, should a provider echo one back in its error message.
const redact = (message: string): string =>
  message
    .replace(/Bearer\s+[^\s"',;]+/gi, "Bearer [redacted]")
    .replace(/\b(sk|pk|rk|key|api[-_]?key)[-_][A-Za-z0-9_\-]{4,}/gi, "[redacted]")
    .replace(/([?&](?:key|api[-_]?key|token|access_token)=)[^&\s"']+/gi, "$1[redacted]")
