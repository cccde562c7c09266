// The chat direction: hookline runs as AI SDK UI message streams, and a hookline agent
// behind useChat (one run per chat, approvals as the AI SDK's approval parts).
export { ChatBusy } from "./busyChat.js"
export { chatAgent, type ChatAgent, type ChatAgentOptions } from "./chatAgent.js"
export { ChatRequestInvalid, decodeTurn, defaultLimits, readBody, type ChatLimits, type ChatTurn } from "./chatRequest.js"
export { toUIMessages, type UIMessagesOptions } from "./history.js"
export { errorText, toUIMessageStream, toUIMessageStreamResponse, type UIMessageStreamOptions } from "./toUIMessageStream.js"
