// The core tests use the public kit's arbitraries (@hookline/testing), under the
// names and call shapes they were written against.
import type fc from "fast-check"
import type { HookContext, HookTrigger } from "@hookline/core"
import { Arbitraries, HookLaws } from "@hookline/testing"

export type Sizes = Arbitraries.Options

export const json = Arbitraries.json()
export const metadata = Arbitraries.metadata()
export const usage = Arbitraries.usage()
export const toolCall = Arbitraries.toolCall()
export const message = (maxToolCalls?: number) => Arbitraries.message({ maxToolCalls })
export const stopSignal = Arbitraries.stopSignal()
export const trigger = Arbitraries.trigger()
export const agentError = Arbitraries.agentError()
export const toolExecution = Arbitraries.toolExecution()
export const finishReason = Arbitraries.finishReason()
export const inferenceResponse = (maxToolCalls?: number) => Arbitraries.inferenceResponse({ maxToolCalls })
export const responseFormat = Arbitraries.responseFormat()
export const inferenceRequest = (sizes: Sizes = {}) => Arbitraries.inferenceRequest(sizes)
export const step = (index: number) => Arbitraries.step({ index })
export const status = Arbitraries.executionStatus()
export const agentState = (sizes: Sizes = {}) => Arbitraries.agentState(sizes)
export const hookContext = (on?: HookTrigger, sizes: Sizes = {}): fc.Arbitrary<HookContext> =>
  Arbitraries.hookContext(on, sizes)

/** Whether a value and everything reachable from it (AppendLog items included) is frozen. */
export const isDeepFrozen = HookLaws.isDeepFrozen
