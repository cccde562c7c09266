// What the built declarations give an app on ai 7 (`tsc -p tsconfig.dist.json`, a step of
// run.mjs after the build): @hookline/ai-sdk resolved to its dist/types (no source
// condition), `ai` to this package's ai 7 everywhere, as an app that installs both gets.
import type { Agent as HooklineAgent } from "@hookline/agent"
import { toAiSdkAgent, type AiSdkAgentCallOptions } from "@hookline/ai-sdk"
import type { AgentState } from "@hookline/core"
import { createAgentUIStreamResponse, type Agent } from "ai"

declare const agent: HooklineAgent<{ readonly user: string }>
declare const load: (chatId: string) => Promise<AgentState | undefined>

// Unannotated, the Agent is ai 7's: createAgentUIStreamResponse takes it, with typed call options.
const plain = toAiSdkAgent(agent, { id: "refund-desk", load })
export const served = createAgentUIStreamResponse({ agent: plain, uiMessages: [], options: { chatId: "c1", context: { user: "u1" } } })
// Its results are ai 7's own (`stream` is ai 7's name; ai 6's result has none).
export const streamed = async (): Promise<ReadableStream<unknown>> => (await plain.stream({ prompt: "hi", options: { chatId: "c1" } })).stream

// Annotated with ai 7's Agent (what a workspace app whose package sources see ai 6 writes).
const typed: Agent<AiSdkAgentCallOptions<{ readonly user: string }>> = toAiSdkAgent(agent, { load })
// @ts-expect-error the call options need the chat id
export const missing = createAgentUIStreamResponse({ agent: typed, uiMessages: [], options: { context: { user: "u1" } } })
// @ts-expect-error the context is the hookline agent's
export const wrongContext = createAgentUIStreamResponse({ agent: plain, uiMessages: [], options: { chatId: "c1", context: { user: 1 } } })
