// The interpreter over modelParts (through the shared eventStream): a language model (specification v3) whose one
// call is one hookline turn. `doStream` pulls the turn's events and writes their parts;
// `doGenerate` collects the same parts into a response. The AI SDK's own `streamText`
// and `generateText` run over it, so every field of their results is the SDK's.
import type { AgentEvent } from "@hookline/agent"
import { eventStream } from "../chat/eventStream.js"
import * as ModelParts from "./modelParts.js"
import type { CallOptions, ContentPart, FinishPart, GenerateResult, ModelV3, StreamPart } from "./modelSpec.js"

let streams = 0

/** The parts of a turn's events; cancelling the stream ends the events' iteration, which aborts the run. */
export const partsOf = (events: AsyncIterable<AgentEvent>): ReadableStream<StreamPart> =>
  eventStream(events, {
    initial: ModelParts.initial(`hl${(streams++).toString(36)}`),
    step: ModelParts.step,
    broken: (state, error) => ModelParts.broken(state, error).parts,
  })

/** A stream's parts as one `doGenerate` answer; an `error` part is thrown, as a failed call is. */
export const collect = async (stream: ReadableStream<StreamPart>): Promise<GenerateResult> => {
  const content: Array<ContentPart> = []
  const texts = new Map<string, { type: "text" | "reasoning"; text: string }>()
  let finish: FinishPart | undefined
  for await (const part of stream as unknown as AsyncIterable<StreamPart>) {
    switch (part.type) {
      case "text-start": {
        const text = { type: "text" as const, text: "" }
        texts.set(part.id, text)
        content.push(text)
        break
      }
      case "reasoning-start": {
        const reasoning = { type: "reasoning" as const, text: "" }
        texts.set(part.id, reasoning)
        content.push(reasoning)
        break
      }
      case "text-delta":
      case "reasoning-delta":
        texts.get(part.id)!.text += part.delta
        break
      case "tool-call":
      case "tool-result":
      case "tool-approval-request":
        content.push(part)
        break
      case "error":
        throw part.error
      case "finish":
        finish = part
        break
      default:
        break
    }
  }
  if (finish === undefined) throw new Error("the turn's stream ended with no finish part")
  return { content, finishReason: finish.finishReason, usage: finish.usage, warnings: [] }
}

/**
 * A language model whose call runs one hookline turn: `run` gives the turn's events,
 * given the call's abort signal. Its prompt is not read (the turn was decided before).
 */
export const turnModel = (run: (signal: AbortSignal | undefined) => AsyncIterable<AgentEvent>, modelId: string): ModelV3 => ({
  specificationVersion: "v3",
  provider: "hookline",
  modelId,
  supportedUrls: {},
  doStream: async (options: CallOptions) => ({ stream: partsOf(run(options.abortSignal)) }),
  doGenerate: async (options: CallOptions) => collect(partsOf(run(options.abortSignal))),
})
