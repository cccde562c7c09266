/**
 * What a subagent's run (`Tool.fromAgent`) knows of the run and the tool call that
 * started it.
 *
 * @since 0.1.0
 */
export { ParentCall } from "./subagent/host.js"
export type { Parent } from "./subagent/host.js"
