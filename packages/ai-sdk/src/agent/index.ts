// The AI SDK `Agent` direction: a hookline agent as an AI SDK 7 (and 6) `Agent`.
export { TurnFailed } from "./modelParts.js"
export { toAiSdkAgent, type AgentV1, type AiSdkAgentCallOptions, type AiSdkAgentOptions } from "./toAiSdkAgent.js"
