/**
 * Language models of each AI SDK specification version, written by hand against the
 * specs (@ai-sdk/provider: LanguageModelV2, V3, V4), so one test file can drive every
 * version whichever `ai` major is installed (`ai/test` has mocks of other versions in
 * each major). Each answers one text with usage details and counts its calls.
 */

/** The `ai` major this test run resolves: the CI leg of AI SDK 7 sets AI_SDK_MAJOR=7. */
export const aiMajor: 6 | 7 = process.env["AI_SDK_MAJOR"] === "7" ? 7 : 6

/** The model specification versions `ai` itself accepts in that major. */
export const sdkAccepts: ReadonlyArray<string> = aiMajor === 7 ? ["v2", "v3", "v4"] : ["v2", "v3"]

export interface SpecModel {
  readonly specificationVersion: string
  readonly provider: string
  readonly modelId: string
  readonly supportedUrls: Record<string, never>
  readonly calls: { generate: number; stream: number }
  readonly doGenerate: (options: unknown) => Promise<unknown>
  readonly doStream: (options: unknown) => Promise<unknown>
}

/** What every model answers: "hi there", 100 input tokens (60 read from cache), 20 output (5 reasoning). */
export const answer = { text: "hi there", input: 100, cached: 60, output: 20, reasoning: 5 } as const

const v2Usage = () => ({
  inputTokens: answer.input,
  outputTokens: answer.output,
  totalTokens: answer.input + answer.output,
  cachedInputTokens: answer.cached,
  reasoningTokens: answer.reasoning,
})

// V3 and V4 share the usage and finish reason shapes.
const v3Usage = () => ({
  inputTokens: { total: answer.input, noCache: answer.input - answer.cached, cacheRead: answer.cached, cacheWrite: undefined },
  outputTokens: { total: answer.output, text: answer.output - answer.reasoning, reasoning: answer.reasoning },
})

const streamOf = (parts: ReadonlyArray<unknown>) =>
  new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })

/** A model that says it implements `version` ("v2" and "v3"/"v4" shapes; anything else answers v3/v4 shapes). */
export const specModel = (version: string): SpecModel => {
  const v2 = version === "v2"
  const usage = v2 ? v2Usage() : v3Usage()
  const finishReason = v2 ? "stop" : { unified: "stop", raw: "stop" }
  const calls = { generate: 0, stream: 0 }
  return {
    specificationVersion: version,
    provider: "test.chat",
    modelId: `model-${version}`,
    supportedUrls: {},
    calls,
    doGenerate: async () => {
      calls.generate++
      return {
        content: [{ type: "text", text: answer.text }],
        finishReason,
        usage,
        warnings: [],
        response: { id: "resp-1", modelId: `model-${version}`, timestamp: new Date(0) },
      }
    },
    doStream: async () => {
      calls.stream++
      return {
        stream: streamOf([
          { type: "stream-start", warnings: [] },
          { type: "response-metadata", id: "resp-1", modelId: `model-${version}`, timestamp: new Date(0) },
          { type: "text-start", id: "t1" },
          { type: "text-delta", id: "t1", delta: "hi " },
          { type: "text-delta", id: "t1", delta: "there" },
          { type: "text-end", id: "t1" },
          { type: "finish", finishReason, usage },
        ]),
      }
    },
  }
}
