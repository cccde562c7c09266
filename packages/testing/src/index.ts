/**
 * @hookline/testing: test hookline agents and hooks offline.
 *
 * @since 0.1.0
 */
import * as ScriptedDriver_ from "./ScriptedDriver.js"
export { ScriptedDriver_ as ScriptedDriver }
export type ScriptedDriver = ScriptedDriver_.ScriptedDriver
