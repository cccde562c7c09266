/**
 * @hookline/ai-sdk: any Vercel AI SDK (ai 6 or 7) language model as a hookline driver;
 * a hookline agent behind AI SDK UI's useChat, and as an AI SDK `Agent`.
 *
 * @since 0.1.0
 */
import * as AiSdkDriver_ from "./AiSdkDriver.js"
export { AiSdkDriver_ as AiSdkDriver }
export type { AiSdkDriverOptions, SdkUsage } from "./AiSdkDriver.js"
export {
  ChatBusy,
  chatAgent,
  ChatRequestInvalid,
  decodeTurn,
  defaultLimits,
  errorText,
  readBody,
  toUIMessages,
  toUIMessageStream,
  toUIMessageStreamResponse,
} from "./chat/index.js"
export { toAiSdkAgent, TurnFailed } from "./agent/index.js"
export type { AgentV1, AiSdkAgentCallOptions, AiSdkAgentOptions } from "./agent/index.js"
export type { ChatAgent, ChatAgentOptions, ChatLimits, ChatTurn, UIMessagesOptions, UIMessageStreamOptions } from "./chat/index.js"
