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
