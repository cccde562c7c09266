// The model's side: responses, requests, tools, formats, options.
import {
  InferenceRequest,
  InferenceResponse,
} from "@hookline/core"
import fc from "fast-check"
import { finishReason, identifier, jsonObject, metadata, sizes, text, type Options } from "./base.js"
import { message, toolCall, toolName, usage } from "./messages.js"

/**
 * A model response, with reasoning or without; the finish reason is any reason, not only
 * the one the tool calls imply.
 *
 * @since 0.1.0
 * @category constructors
 */
export const inferenceResponse = (options: Options = {}): fc.Arbitrary<InferenceResponse> =>
  fc
    .record({
      text: text(options),
      toolCalls: fc.array(toolCall(options), { maxLength: sizes(options).maxToolCalls }),
      usage: usage(options),
      finishReason: finishReason(),
      modelId: identifier,
      metadata: metadata(options),
      reasoning: fc.option(text(options), { nil: undefined }),
    })
    .map(InferenceResponse.make)

/**
 * A response format: text, or JSON with an optional schema and name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const responseFormat = (options: Options = {}): fc.Arbitrary<InferenceRequest.ResponseFormat> =>
  fc.oneof(
    fc.constant<InferenceRequest.ResponseFormat>(Object.freeze({ type: "text" })),
    fc
      .record({ schema: fc.option(jsonObject(options), { nil: undefined }), name: fc.option(identifier, { nil: undefined }) })
      .map(({ schema, name }): InferenceRequest.ResponseFormat =>
        Object.freeze({ type: "json", ...(schema === undefined ? {} : { schema }), ...(name === undefined ? {} : { name }) })
      ),
  )

/**
 * A tool as the model sees it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toolDefinition = (options: Options = {}): fc.Arbitrary<InferenceRequest.ToolDefinition> =>
  fc
    .record({ name: toolName(options), description: text(options), parameters: jsonObject(options) })
    .map((d) => Object.freeze(d))

/**
 * Sampling options: each present or not.
 *
 * @since 0.1.0
 * @category constructors
 */
export const modelOptions = (): fc.Arbitrary<InferenceRequest.ModelOptions> =>
  fc
    .record(
      {
        temperature: fc.integer({ min: 0, max: 20 }).map((n) => n / 10),
        maxOutputTokens: fc.nat(4_096),
        seed: fc.nat(),
      },
      { requiredKeys: [] },
    )
    .map((o) => Object.freeze(o))

/**
 * A request: system prompt, up to `maxMessages` messages, up to `maxTools` tools.
 *
 * @since 0.1.0
 * @category constructors
 */
export const inferenceRequest = (options: Options = {}): fc.Arbitrary<InferenceRequest> => {
  const s = sizes(options)
  return fc
    .record({
      systemPrompt: text(options),
      messages: fc.array(message(options), { maxLength: s.maxMessages }),
      tools: fc.array(toolDefinition(options), { maxLength: s.maxTools }),
      responseFormat: fc.option(responseFormat(options), { nil: undefined }),
      options: modelOptions(),
    })
    .map(InferenceRequest.make)
}

