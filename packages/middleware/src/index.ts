/**
 * @hookline/middleware: ready-made hooks offered as capabilities.
 *
 * @since 0.1.0
 */
export * as ToolCallLimit from "./ToolCallLimit.js"
export * as ModelCallLimit from "./ModelCallLimit.js"
export * as ClearToolResults from "./ClearToolResults.js"
export * as PiiRedaction from "./PiiRedaction.js"
export * as CostBudget from "./CostBudget.js"
