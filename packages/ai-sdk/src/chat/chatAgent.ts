// One hookline run per chat, behind AI SDK UI's useChat: the chat id is the run id, a
// new chat starts the run, a new user turn continues it, approval responses resume it.
// The conversation is the stored run's; the client's messages give only the new text
// or the decisions.
import type { Agent, AgentEvent } from "@hookline/agent"
import type { AgentState } from "@hookline/core"
import type { UIMessage } from "ai"
import { ChatRequestInvalid, decodeTurn, defaultLimits, readBody, type ChatLimits, type ChatTurn } from "./chatRequest.js"
import { toUIMessages } from "./history.js"
import { toUIMessageStreamResponse, type UIMessageStreamOptions } from "./toUIMessageStream.js"
import { busyTimeoutOf, ChatBusy, makeWaiting, waitingTurnEvents } from "./busyChat.js"

/**
 * Options of `chatAgent`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChatAgentOptions<C> extends UIMessageStreamOptions {
  /**
   * The stored run of a chat id, `undefined` for a new chat: with `@hookline/store`,
   * `(id) => RunStore.load(store, id).then((saved) => saved?.state)`. The agent must
   * keep its runs in the same store (`UseCheckpoints(store)`).
   */
  readonly load: (chatId: string) => Promise<AgentState | undefined>
  /**
   * The run context of a request (who asks: from its session, its headers), given to
   * the run and never stored. Leave it out when the agent reads none.
   */
  readonly context?: ((request: Request | undefined) => C | Promise<C>) | undefined
  /** Bounds on a request (defaults: `defaultLimits`). */
  readonly limits?: Partial<ChatLimits> | undefined
  /**
   * How long (ms) a request waits when another request of the same chat is running its
   * turn (two first requests at once, a second tab) before it is refused with `ChatBusy`
   * (default 30,000: the store's default lease; `0` refuses at once).
   */
  readonly busyTimeout?: number | undefined
}

/**
 * A hookline agent serving AI SDK UI chats (`useChat`, ai 6 and 7).
 *
 * @since 0.1.0
 * @category models
 */
export interface ChatAgent {
  /**
   * Answers a `POST` from useChat's default transport: the body is read bounded and
   * validated; a bad one is a 400 (413 over the size limit) JSON `{ error: { field,
   * message } }`; a request refused as busy (`busyTimeout`) is a 409 JSON `{ error: {
   * _tag: "ChatBusy", chatId, message } }`; else the run's events as a UI message stream.
   */
  readonly respond: (request: Request) => Promise<Response>
  /** The events of a turn already decoded (for a server with its own body handling). */
  readonly stream: (turn: ChatTurn, request?: Request) => AsyncIterable<AgentEvent>
  /** A chat's messages as the page shows them, from the store (`[]` for a new chat). */
  readonly messages: (chatId: string) => Promise<Array<UIMessage>>
}

// The events again, their first already read; leaving early ends the rest (aborting the run).
async function* startingWith<A>(first: IteratorResult<A>, rest: AsyncIterator<A>): AsyncGenerator<A> {
  try {
    for (let next = first; next.done !== true; next = await rest.next()) yield next.value
  } finally {
    await rest.return?.()
  }
}

// No events, then `error` (what broke a stream before its first event, sent as before: an `error` part).
async function* failing(error: unknown): AsyncGenerator<AgentEvent> {
  throw error
}

/**
 * A hookline agent behind useChat: one run per chat (the chat id is the run id).
 * A chat's first message starts the run (keyed by the message's id, so the same first
 * message sent again starts nothing); a request that finds another request of its chat
 * running the turn (two first requests at once, two tabs) waits for that turn to end
 * (up to `busyTimeout`, else a 409 Conflict whose JSON body names `ChatBusy` and the chat), then is answered as a repeat
 * (the same message) or as the next turn (another message); each later user message continues the stored
 * run (`agent.continueStream`, keyed by the message's id, so the same message sent
 * again appends nothing; a user message while the run waits for an approval is refused
 * with an `error` part, `ContinuationRefused`); approval responses (`addToolApprovalResponse`) resume
 * the suspended run with `Decision.approve` or `Decision.reject` (`agent.resumeStream`):
 * the same response again is a no-op, a different one for a decided call is refused
 * with an `error` part (`DecisionInvalid: ...`). The agent needs a store
 * (`UseCheckpoints`) and the same store's `load`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const chatAgent = <C>(agent: Agent<C>, options: ChatAgentOptions<C>): ChatAgent => {
  const limits: ChatLimits = { ...defaultLimits, ...options.limits }
  const busy = { busyTimeout: busyTimeoutOf(options.busyTimeout), waiting: makeWaiting() }
  const contextOf = async (request: Request | undefined) =>
    options.context === undefined ? undefined : { context: await options.context(request) }

  async function* stream(turn: ChatTurn, request?: Request): AsyncGenerator<AgentEvent> {
    return yield* waitingTurnEvents(agent, turn, { load: options.load, context: await contextOf(request), signal: request?.signal }, busy)
  }

  const refused = (error: ChatRequestInvalid): Response =>
    Response.json({ error: { field: error.field, message: error.message } }, { status: /^over \d+ bytes$/.test(error.message) ? 413 : 400 })

  // No Retry-After: when the other request's turn ends is not known here (docs/decisions.md).
  const busyRefused = (error: ChatBusy): Response =>
    Response.json({ error: { _tag: error._tag, chatId: error.chatId, message: error.message } }, { status: 409 })

  const respond = async (request: Request): Promise<Response> => {
    let turn: ChatTurn
    try {
      turn = await decodeTurn(await readBody(request, limits.maxBodyBytes), limits)
    } catch (error) {
      if (error instanceof ChatRequestInvalid) return refused(error)
      throw error
    }
    // The first event is awaited before the answer's status is chosen: a request refused
    // as busy has sent nothing, so it is a 409; anything else streams as before.
    const events = stream(turn, request)[Symbol.asyncIterator]()
    let first: IteratorResult<AgentEvent>
    try {
      first = await events.next()
    } catch (error) {
      if (error instanceof ChatBusy) return busyRefused(error)
      return toUIMessageStreamResponse(failing(error), { onError: options.onError })
    }
    return toUIMessageStreamResponse(startingWith(first, events), { onError: options.onError })
  }

  const messages = async (chatId: string): Promise<Array<UIMessage>> => {
    const state = await options.load(chatId)
    return state === undefined ? [] : toUIMessages(state)
  }

  return { respond, stream, messages }
}
