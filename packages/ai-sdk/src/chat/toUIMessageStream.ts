// The UI message stream of a run's events: uiChunks through the shared interpreter
// (eventStream.ts), and the SSE Response through the AI SDK's own helper.
import type { AgentEvent } from "@hookline/agent"
import { createUIMessageStreamResponse, type UIMessageChunk } from "ai"
import { eventStream } from "./eventStream.js"
import * as UiChunks from "./uiChunks.js"

/**
 * Options of `toUIMessageStream`.
 *
 * @since 0.1.0
 * @category models
 */
export interface UIMessageStreamOptions {
  /**
   * The text of the `error` chunk when the events break off with an error (a failed
   * load, a refused decision). Default: a hookline tagged error's `<tag>: <message>`
   * (hookline's messages name no secret), anything else "An error occurred." so a
   * server's internals are not sent to the page.
   */
  readonly onError?: ((error: unknown) => string) | undefined
}

/**
 * The default text of an error that broke a stream off: a tagged error's tag and
 * message, else a fixed sentence.
 *
 * @since 0.1.0
 * @category errors
 */
export const errorText = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const { _tag, message } = error as { readonly _tag?: unknown; readonly message?: unknown }
    if (typeof _tag === "string" && typeof message === "string") return `${_tag}: ${message}`.slice(0, 1000)
  }
  return "An error occurred."
}

let streams = 0

/**
 * A hookline run's events (`agent.stream`, `agent.resumeStream`, `agent.continueStream`)
 * as an AI SDK UI message stream: `start`; per step `start-step`, the model's reasoning
 * when it gives it (`reasoning-start`/`reasoning-delta`/`reasoning-end`), the text
 * (`text-start`/`text-delta`/`text-end`), tool calls (`tool-input-available`), their
 * results (`tool-output-available`, `tool-output-error`, `tool-output-denied` for a
 * call a person rejected) and `finish-step`; the calls a suspended run waits on as
 * `tool-approval-request` (the approval id is the call id); then `error` for a failed
 * run and `finish`. Cancelling the stream ends the events' iteration, which aborts
 * the run.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toUIMessageStream = (
  events: AsyncIterable<AgentEvent>,
  options: UIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> => {
  const onError = options.onError ?? errorText
  return eventStream(events, {
    initial: UiChunks.initial(`h${(streams++).toString(36)}`),
    step: (state, event) => {
      const mapped = UiChunks.step(state, event)
      return { state: mapped.state, parts: mapped.chunks }
    },
    broken: (state, error) => UiChunks.broken(state, onError(error)).chunks,
  })
}

/**
 * `toUIMessageStream` as a `Response` of server-sent events, with the headers AI SDK
 * UI's `useChat` expects (the AI SDK's `createUIMessageStreamResponse`).
 *
 * @since 0.1.0
 * @category conversions
 */
export const toUIMessageStreamResponse = (
  events: AsyncIterable<AgentEvent>,
  options: UIMessageStreamOptions & { readonly status?: number | undefined; readonly headers?: Record<string, string> | undefined } = {},
): Response =>
  createUIMessageStreamResponse({
    stream: toUIMessageStream(events, options),
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.headers === undefined ? {} : { headers: options.headers }),
  })
