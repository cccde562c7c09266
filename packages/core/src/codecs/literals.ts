/**
 * Codecs for the closed sets of names: triggers, stop reasons, finish reasons and
 * execution statuses.
 *
 * @since 0.1.0
 */
import type { ExecutionStatus as ExecutionStatus_ } from "../AgentState.js"
import * as HookTrigger_ from "../HookTrigger.js"
import * as InferenceResponse_ from "../InferenceResponse.js"
import * as StopReason_ from "../StopReason.js"
import * as WrapHook_ from "../WrapHook.js"
import { literals, type Codec } from "./combinators.js"

/**
 * One of the ten trigger names.
 *
 * @since 0.1.0
 * @category codecs
 */
export const HookTrigger: Codec<HookTrigger_.HookTrigger> = literals(HookTrigger_.all)

/**
 * A trigger or a wrap point: where a hook runs (the `trigger` of `HookFailed`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const HookPoint: Codec<HookTrigger_.HookTrigger | WrapHook_.WrapPoint> = literals([...HookTrigger_.all, ...WrapHook_.points])

/**
 * One of the stop reasons.
 *
 * @since 0.1.0
 * @category codecs
 */
export const StopReason: Codec<StopReason_.StopReason> = literals(StopReason_.all)

/**
 * One of the finish reasons (the Vercel AI SDK's names).
 *
 * @since 0.1.0
 * @category codecs
 */
export const FinishReason: Codec<InferenceResponse_.FinishReason> = literals(InferenceResponse_.finishReasons)

const statuses: ReadonlyArray<ExecutionStatus_> = ["pending", "running", "suspended", "completed", "stopped", "failed"]

/**
 * An execution status: pending, running, completed, stopped or failed.
 *
 * @since 0.1.0
 * @category codecs
 */
export const ExecutionStatus: Codec<ExecutionStatus_> = literals(statuses)
