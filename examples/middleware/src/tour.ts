// The built-ins of @hookline/middleware in three scripted runs, offline:
//  1. a support agent with every context and safety built-in composed (tool-call limit,
//     PII redaction, clearing old tool results, summarization, structured output, and
//     a cost budget that prices cached tokens) that completes;
//  2. a runaway model stopped by the model-call limit, which answers for it;
//  3. an expensive model stopped by the cost budget.
// Each run returns what its built-ins did, read from the final state and from what the
// scripted model was sent: nothing here is printed from a constant.
import * as t from "io-ts"
import { AgentBuilder, Tool, UseDriver, UseGuards, UseTools } from "@hookline/agent"
import { StopSignal, Usage, type AgentState } from "@hookline/core"
import {
  ClearToolResults,
  CostBudget,
  Output,
  Summarization,
  UseClearToolResults,
  UseCostBudget,
  UseModelCallLimit,
  UsePiiRedaction,
  UseSummarization,
  UseToolCallLimit,
} from "@hookline/middleware"
import { ScriptedDriver } from "@hookline/testing"

/** Money per million tokens, by the model id the driver reports. */
export const prices = { "gpt-4o-mini": { input: 0.15, output: 0.6, cachedInput: 0.075 } }

// Every model call: 2,000 input tokens, 1,500 of them read from the provider's cache.
const usage = Usage.make(2_000, 100, { cachedInputTokens: 1_500 })
const answer = { usage, modelId: "gpt-4o-mini" }

const customer = Tool.make({
  name: "customer",
  description: "Looks a customer up by id",
  parameters: t.type({ id: t.number }),
  execute: ({ id }) => `#${id} Ada Lovelace, ada@example.com, +1 415 555 0100, card 4111 1111 1111 1111`,
})

const readPage = Tool.make({
  name: "read_page",
  description: "Reads a page of the customer's file",
  parameters: t.type({ n: t.number }),
  execute: ({ n }) => `page ${n}: ${"the customer asked about an invoice. ".repeat(12)}`,
})

/**
 * The final answer's schema: the structured output built-in decodes it. The card on
 * file is a number as the model writes it, the marker string once redacted.
 */
export const Answer = t.type({ customer: t.string, contact: t.string, card: t.union([t.number, t.string]), pagesRead: t.number })

const toolResults = (state: AgentState): Array<string> =>
  [...state.context.messages].flatMap((m) => (m.role === "tool" ? [m.content] : []))

export interface SupportReport {
  readonly status: string
  /** The tool results as the state keeps them (redacted, the blocked call's reason). */
  readonly toolResults: ReadonlyArray<string>
  /** The user's question as the model read it (redacted), and as the state keeps it. */
  readonly questionRead: string
  readonly questionKept: string
  /** The tool results the model read on its last call (older ones cleared). */
  readonly lastCallToolResults: ReadonlyArray<string>
  /** How many model calls the summarizer answered, and the summary the state keeps. */
  readonly summaries: number
  readonly summary: string | undefined
  readonly lastCallSystemPrompt: string
  /** The structured output: the decoded answer and the feedback the model got. */
  readonly answer: t.TypeOf<typeof Answer> | undefined
  readonly outputFeedback: ReadonlyArray<string>
  /** What the run cost, and the cached tokens the cost budget priced lower. */
  readonly modelCalls: number
  readonly cachedInputTokens: number
  readonly cost: number
}

/** Run 1: a support agent with every context and safety built-in. */
export const support = async (): Promise<SupportReport> => {
  const model = ScriptedDriver.make([
    ScriptedDriver.toolCalls([{ name: "customer", arguments: { id: 42 } }], answer),
    ScriptedDriver.toolCalls([{ name: "read_page", arguments: { n: 1 } }], answer),
    ScriptedDriver.toolCalls([{ name: "read_page", arguments: { n: 2 } }], answer),
    ScriptedDriver.toolCalls([{ name: "read_page", arguments: { n: 3 } }, { name: "read_page", arguments: { n: 4 } }], answer),
    ScriptedDriver.text("Ada Lovelace asked about an invoice.", answer),
    ScriptedDriver.text(JSON.stringify({ customer: "Ada Lovelace", contact: "ada@example.com", card: 4111111111111111, pagesRead: 3 }), answer),
  ])
  const summarizer = ScriptedDriver.make([ScriptedDriver.text("Ada Lovelace (#42) asked about an invoice; pages 1-2 read.")], {
    repeatLast: true,
  })
  const output = Output.make(Answer, { retries: 1 })
  const final = await AgentBuilder.make(
    UseDriver(model),
    UseTools([customer, readPage]),
    UseGuards({ maxTokens: null }),
    UseToolCallLimit({ total: 10, perTool: { read_page: 3 } }),
    UsePiiRedaction({ on: ["toolResults", "responses", "userMessages"] }),
    UseClearToolResults({ keep: 2 }),
    UseSummarization({ driver: summarizer, maxTokens: 400, keep: 4 }),
    output.use,
    UseCostBudget({ maxCost: 0.01, prices, currency: "USD" }),
  ).run("I am agent bob@example.org. What did customer 42 ask about? Answer as JSON.")
  const last = model.requests.at(-1)
  return {
    status: final.execution.status,
    toolResults: toolResults(final),
    questionRead: model.requests[0]?.messages.at(0)?.content ?? "",
    questionKept: final.context.messages.at(0)?.content ?? "",
    lastCallToolResults: [...(last?.messages ?? [])].flatMap((m) => (m.role === "tool" ? [m.content] : [])),
    summaries: summarizer.requests.length,
    summary: Summarization.summaryOf(final)?.text,
    lastCallSystemPrompt: last?.systemPrompt ?? "",
    answer: await output.value(final),
    outputFeedback: [...final.context.messages].slice(1).flatMap((m) => (m.role === "user" ? [m.content] : [])),
    modelCalls: model.requests.length,
    cachedInputTokens: final.execution.usage.cachedInputTokens ?? 0,
    cost: CostBudget.cost(final, prices),
  }
}

export interface StopReport {
  readonly status: string
  readonly modelCalls: number
  readonly stoppedBy: string | undefined
  readonly message: string | undefined
  readonly lastMessage: string | undefined
}

const stopReport = (final: AgentState, modelCalls: number): StopReport => {
  const signal = StopSignal.highest(final.execution.stopSignals)
  return {
    status: final.execution.status,
    modelCalls,
    stoppedBy: signal?.source,
    message: signal?.message,
    lastMessage: final.context.messages.toArray().at(-1)?.content,
  }
}

// A model that never stops asking for pages.
const runaway = () =>
  ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "read_page", arguments: { n: 1 } }], answer)], { repeatLast: true })

/** Run 2: the model-call limit ends a runaway model with a message the user reads. */
export const modelCallLimit = async (): Promise<StopReport> => {
  const model = runaway()
  const final = await AgentBuilder.make(
    UseDriver(model),
    UseTools([readPage]),
    UseGuards({ maxTokens: null }),
    UseModelCallLimit({ max: 3, onLimit: "answer", message: "I stopped after 3 model calls; ask me to go on." }),
  ).run("Read the whole file.")
  return stopReport(final, model.requests.length)
}

/** Run 3: the cost budget stops the same model once the run has cost 0.0005 USD. */
export const costBudget = async (): Promise<StopReport> => {
  const model = runaway()
  const final = await AgentBuilder.make(
    UseDriver(model),
    UseTools([readPage]),
    UseGuards({ maxTokens: null }),
    UseCostBudget({ maxCost: 0.0005, prices, currency: "USD" }),
  ).run("Read the whole file.")
  return stopReport(final, model.requests.length)
}

/** The placeholder of a cleared tool result, for readers of the report. */
export const clearedPlaceholder = ClearToolResults.defaultPlaceholder
