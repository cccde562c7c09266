/**
 * @hookline/middleware: ready-made hooks offered as capabilities.
 *
 * @since 0.2.0
 */
export * as Fallback from "./Fallback.js"
export * as Retry from "./Retry.js"
export * as Timeout from "./Timeout.js"
export { UseFallbackModels } from "./Fallback.js"
export { UseModelRetry, UseToolRetry } from "./Retry.js"
export { UseModelTimeout, UseToolTimeout } from "./Timeout.js"
