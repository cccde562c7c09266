/**
 * @hookline/middleware: ready-made hooks offered as capabilities.
 *
 * @since 0.1.0
 */
export * as SlidingWindow from "./SlidingWindow.js"
export { UseSlidingWindow } from "./SlidingWindow.js"
export * as Fallback from "./Fallback.js"
export { UseFallbackModels } from "./Fallback.js"
export * as Retry from "./Retry.js"
export { UseModelRetry, UseToolRetry } from "./Retry.js"
export * as Timeout from "./Timeout.js"
export { UseModelTimeout, UseToolTimeout } from "./Timeout.js"
export * as ToolCallLimit from "./ToolCallLimit.js"
export { UseToolCallLimit } from "./ToolCallLimit.js"
export * as ModelCallLimit from "./ModelCallLimit.js"
export { UseModelCallLimit } from "./ModelCallLimit.js"
export * as ClearToolResults from "./ClearToolResults.js"
export { UseClearToolResults } from "./ClearToolResults.js"
export * as PiiRedaction from "./PiiRedaction.js"
export { UsePiiRedaction } from "./PiiRedaction.js"
export * as CostBudget from "./CostBudget.js"
export { UseCostBudget } from "./CostBudget.js"
export * as Summarization from "./Summarization.js"
export { UseSummarization } from "./Summarization.js"
export * as Output from "./Output.js"
export { UseOutput } from "./Output.js"
export * as Approval from "./Approval.js"
export { UseApproval } from "./Approval.js"
