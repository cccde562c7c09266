// Tool rounds: an assistant message with tool calls, then the results of those calls.
// Providers (OpenAI, Anthropic) reject a history in which anything else comes between
// an assistant's tool calls and the last of their results. The loop commits each round
// whole (the calls, then one result per call, settleTools); while it runs the tools the
// round at the end of the history is open, its results still to come. So the rule a
// history keeps: once an assistant message with tool calls opens a round, the messages
// that follow are results of its calls until every call is answered; only the end of
// the history may come first.
import type { Message } from "../Message.js"

/** What reads like a list of messages: an AppendLog or an array. */
interface Messages {
  readonly length: number
  at(index: number): Message | undefined
}

/** Where a round is split: the message in the way, and the round it splits. */
export interface Split {
  readonly index: number
  readonly role: Message["role"]
  readonly round: number
  readonly waiting: ReadonlyArray<string>
}

// The first split at or after `from`, scanning from `start` (a place no round is open,
// or the assistant message that opens one).
const scan = (messages: Messages, start: number, from: number): Split | undefined => {
  let round = -1
  let waiting: Set<string> | undefined
  for (let i = start; i < messages.length; i++) {
    const message = messages.at(i) as Message
    if (waiting !== undefined) {
      if (message.role === "tool" && waiting.has(message.toolCallId)) {
        waiting.delete(message.toolCallId)
        if (waiting.size === 0) waiting = undefined
        continue
      }
      if (i >= from) return { index: i, role: message.role, round, waiting: [...waiting] }
      // A split before `from` was there already: not this change's.
      waiting = undefined
    }
    if (message.role === "assistant" && message.toolCalls.length > 0) {
      round = i
      waiting = new Set(message.toolCalls.map((c) => c.id))
    }
  }
  return undefined
}

/**
 * The first split in `messages` at or after `from` (the first index a change touched):
 * the scan starts at the round open at `from`, found by reading back over the results
 * before it, so an append costs the length of one round, not of the history.
 */
export const splitOf = (messages: Messages, from = 0): Split | undefined => {
  let start = Math.min(from, messages.length)
  while (start > 0 && messages.at(start - 1)?.role === "tool") start--
  const before = start > 0 ? messages.at(start - 1) : undefined
  if (before !== undefined && before.role === "assistant" && before.toolCalls.length > 0) start--
  return scan(messages, start, from)
}

/** What a split is, for a person, under `where` (the list's path). */
export const describeSplit = (where: string, split: Split): string =>
  `${where}[${split.index}]: a ${split.role} message comes between the tool calls of the assistant message at ${where}[${split.round}] `
  + `and their results (waiting: ${split.waiting.slice(0, 5).join(", ")}${split.waiting.length > 5 ? ", …" : ""}); `
  + "providers reject such a history: add a message only where no tool call waits for its result (AfterStep, OnStop, BeforeStep, …)"
