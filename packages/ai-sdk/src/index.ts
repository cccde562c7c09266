/**
 * @hookline/ai-sdk: any Vercel AI SDK (ai 6 or 7) language model as a hookline driver.
 *
 * @since 0.1.0
 */
import * as AiSdkDriver_ from "./AiSdkDriver.js"
export { AiSdkDriver_ as AiSdkDriver }
export type { AiSdkDriverOptions, SdkUsage } from "./AiSdkDriver.js"
