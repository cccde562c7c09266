// A hookline agent as an AI SDK `Agent` (`version: "agent-v1"`): each call is one turn
// of the run whose id is the chat id, presented to the AI SDK's own `streamText` and
// `generateText` as one call of a language model (turnModel.ts), so their results are
// the SDK's, complete.
import type { Agent } from "@hookline/agent"
import type { AgentState } from "@hookline/core"
import { generateText, streamText, type Agent as SdkAgent } from "ai"
import { defaultLimits, type ChatLimits } from "../chat/chatRequest.js"
import { busyTimeoutOf, makeWaiting, waitingTurnEvents } from "../chat/busyChat.js"
import { checkCallOptions, decodeAgentTurn } from "./agentTurn.js"
import { turnModel } from "./turnModel.js"

/**
 * The call options of a hookline agent's AI SDK calls (`options` of `generate`/`stream`,
 * of `createAgentUIStreamResponse`): per request, never stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface AiSdkAgentCallOptions<C = unknown> {
  /** The chat: the id of its hookline run (1 to 128 of A-Z a-z 0-9 _ . : -). */
  readonly chatId: string
  /**
   * The new user message's id (the last UI message's `id`): the turn's idempotency key,
   * so the same message sent again runs nothing. Without it the key is derived from the
   * message's place among the user messages and its text.
   */
  readonly messageId?: string | undefined
  /** The run context of this request (who asks), given to the run. */
  readonly context?: C | undefined
}

/**
 * Options of `toAiSdkAgent`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AiSdkAgentOptions {
  /** The agent's id (`Agent.id`); also the model id its steps report. */
  readonly id?: string | undefined
  /**
   * The stored run of a chat id, `undefined` for a new chat: with `@hookline/store`,
   * `(id) => RunStore.load(store, id).then((saved) => saved?.state)`. The agent must
   * keep its runs in the same store (`UseCheckpoints(store)`).
   */
  readonly load: (chatId: string) => Promise<AgentState | undefined>
  /** Bounds on a call's messages (defaults: `defaultLimits`; `maxBodyBytes` is not read). */
  readonly limits?: Partial<ChatLimits> | undefined
  /**
   * How long (ms) a call waits when another call of the same chat is running its turn
   * before it is refused with `ChatBusy` (default 30,000; `0` refuses at once).
   */
  readonly busyTimeout?: number | undefined
}

/**
 * What every major's AI SDK `Agent` (`agent-v1`) is, as far as `toAiSdkAgent` promises:
 * the bound on the `Agent` type it gives. Only what ai 6's and ai 7's `Agent` share, so
 * either satisfies it.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentV1<C = unknown> {
  readonly version: "agent-v1"
  readonly id: string | undefined
  readonly tools: {}
  generate(options: { readonly options: AiSdkAgentCallOptions<C> }): PromiseLike<unknown>
  stream(options: { readonly options: AiSdkAgentCallOptions<C> }): PromiseLike<unknown>
}

/**
 * A hookline agent as an AI SDK `Agent` (`version: "agent-v1"`; ai 7, and ai 6 whose
 * `Agent` interface is the same), for `createAgentUIStreamResponse({ agent, uiMessages,
 * options: { chatId } })` and every other AI SDK function that takes an `Agent`.
 *
 * Each call is one turn of the run whose id is `options.chatId`: a trailing user message
 * starts the run (a new chat) or continues it (`agent.continueStream`, keyed by
 * `options.messageId`, so a retried request runs nothing; a call that finds another call
 * of its chat running the turn waits for it, up to `busyTimeout`, then is answered as a
 * repeat or as the next turn); trailing approval responses
 * (`addToolApprovalResponse`) resume it (`agent.resumeStream`: the same response again is
 * a no-op, a conflicting one an `error` part). The turn is one AI SDK step: its text,
 * its tool calls and results as provider-executed dynamic tools (the hookline loop ran
 * them, under its hooks), the calls it waits on as approval requests, its usage and
 * finish reason. `stream` and `generate` are the AI SDK's own `streamText` and
 * `generateText` over that step, so their results are complete. `tools` is empty: the
 * AI SDK runs none of hookline's tools.
 *
 * Its type is the `Agent` of the `ai` this package's types resolve (the one a project
 * installs beside it: ai 6 or 7). `A` names another major's `Agent` where both are in one
 * build (a workspace whose app is on ai 7 while this package's source sees ai 6): annotate
 * `const sdk: Agent<AiSdkAgentCallOptions<C>> = toAiSdkAgent(agent, options)` with your
 * `ai`'s `Agent`. At run time the object calls the `ai` its module imports.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toAiSdkAgent = <C, A extends AgentV1<C> = SdkAgent<AiSdkAgentCallOptions<C>>>(agent: Agent<C>, options: AiSdkAgentOptions): A => {
  const limits: ChatLimits = { ...defaultLimits, ...options.limits }
  const modelId = options.id ?? "hookline"
  const busy = { busyTimeout: busyTimeoutOf(options.busyTimeout), waiting: makeWaiting() }
  const prepare = async (callOptions: unknown, prompt: unknown) => {
    const call = checkCallOptions(callOptions)
    const turn = await decodeAgentTurn(call, prompt, limits)
    const run = { load: options.load, context: call.context as { readonly context: C } | undefined }
    return turnModel((signal) => waitingTurnEvents(agent, turn, { ...run, signal }, busy), modelId)
  }
  const sdkAgent: SdkAgent<AiSdkAgentCallOptions<C>> = {
    version: "agent-v1",
    id: options.id,
    tools: {},
    generate: async ({ options: callOptions, prompt, messages, ...settings }) => {
      const input = prompt ?? messages
      return generateText({ ...settings, model: await prepare(callOptions, input), ...(typeof input === "string" ? { prompt: input } : { messages: input }) })
    },
    stream: async ({ options: callOptions, prompt, messages, ...settings }) => {
      const input = prompt ?? messages
      return streamText({ ...settings, model: await prepare(callOptions, input), ...(typeof input === "string" ? { prompt: input } : { messages: input }) })
    },
  }
  // The installed ai's Agent; `A` is that type as the caller's `ai` spells it (see above).
  return sdkAgent as unknown as A
}
