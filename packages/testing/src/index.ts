/**
 * @hookline/testing: test hookline agents and hooks offline.
 * The run store conformance suite is at `@hookline/testing/store`, so that this entry
 * point does not need `@hookline/store`.
 *
 * @since 0.1.0
 */
import * as ScriptedDriver_ from "./ScriptedDriver.js"
export { ScriptedDriver_ as ScriptedDriver }
export type ScriptedDriver = ScriptedDriver_.ScriptedDriver
import * as Arbitraries_ from "./Arbitraries.js"
export { Arbitraries_ as Arbitraries }
import * as HookLaws_ from "./HookLaws.js"
export { HookLaws_ as HookLaws }
import * as TraceRecorder_ from "./TraceRecorder.js"
export { TraceRecorder_ as TraceRecorder }
export type TraceRecorder = TraceRecorder_.TraceRecorder
import * as Rejections_ from "./Rejections.js"
export { Rejections_ as Rejections }
