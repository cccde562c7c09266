// One chat turn as a hookline run's events: the chat id is the run id; a new chat starts
// the run, a user message continues it (keyed, so a repeat is a no-op), decisions resume
// it. Shared by `chatAgent` (useChat's HTTP protocol) and `toAiSdkAgent` (the AI SDK's
// `Agent` interface).
import { Agent, type AgentEvent } from "@hookline/agent"
import { AgentState, Message } from "@hookline/core"
import { Result } from "effect"
import type { ChatTurn } from "./chatRequest.js"

/** Where a turn runs: the stored run's loader, and what this request gives the run (never stored). */
export interface TurnRun<C> {
  readonly load: (chatId: string) => Promise<AgentState | undefined>
  /** The run context, when the agent reads one. */
  readonly context?: { readonly context: C } | undefined
  readonly signal?: AbortSignal | undefined
}

/**
 * The events of one turn. A chat's first message starts the run keyed by the message's
 * key (`Agent.startKeyed`), so the same first message sent again is a repeat, as a later
 * message's is (`continueStream` with the key).
 */
export async function* turnEvents<C>(agent: Agent<C>, turn: ChatTurn, run: TurnRun<C>): AsyncGenerator<AgentEvent> {
  const given = { ...run.context, ...(run.signal === undefined ? {} : { signal: run.signal }) }
  if (turn._tag === "Decisions") {
    const args = [{ ...given, decisions: turn.decisions }] as unknown as Agent.ResumeArguments<C>
    return yield* agent.resumeStream(turn.chatId, ...args)
  }
  const stored = await run.load(turn.chatId)
  if (stored === undefined) {
    const started = Agent.startKeyed(AgentState.make({ id: turn.chatId, messages: [Message.user(turn.text)] }), turn.messageId)
    if (Result.isFailure(started)) throw started.failure
    return yield* agent.stream(started.success, ...([given] as unknown as Agent.RunArguments<C>))
  }
  const continued = [{ ...given, key: turn.messageId }] as unknown as Agent.ContinueArguments<C>
  return yield* agent.continueStream(turn.chatId, turn.text, ...continued)
}
