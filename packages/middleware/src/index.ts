/**
 * @hookline/middleware: ready-made hooks offered as capabilities.
 *
 * @since 0.1.0
 */
export * as SlidingWindow from "./SlidingWindow.js"
export { UseSlidingWindow } from "./SlidingWindow.js"
export * as Approval from "./Approval.js"
export { UseApproval } from "./Approval.js"
