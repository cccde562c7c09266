/**
 * @hookline/core: frozen agent state, hook contexts, priority-sorted hook stacks.
 * Each module is exported as a namespace; where a module is named after its main
 * type, that name is the type too (`const s: AgentState = AgentState.make()`).
 *
 * @since 0.1.0
 */
import * as AgentError_ from "./AgentError.js"
export { AgentError_ as AgentError }
export type AgentError = AgentError_.AgentError
import * as AgentState_ from "./AgentState.js"
export { AgentState_ as AgentState }
export type AgentState = AgentState_.AgentState
import * as AppendLog_ from "./AppendLog.js"
export { AppendLog_ as AppendLog }
export type AppendLog<A> = AppendLog_.AppendLog<A>
import * as Guards_ from "./Guards.js"
export { Guards_ as Guards }
import * as Hook_ from "./Hook.js"
export { Hook_ as Hook }
export type Hook<C = unknown> = Hook_.Hook<C>
import * as HookContext_ from "./HookContext.js"
export { HookContext_ as HookContext }
export type HookContext<C = unknown> = HookContext_.HookContext<C>
import * as HookExecuted_ from "./HookExecuted.js"
export { HookExecuted_ as HookExecuted }
export type HookExecuted = HookExecuted_.HookExecuted
import * as HookStack_ from "./HookStack.js"
export { HookStack_ as HookStack }
export type HookStack<R = never> = HookStack_.HookStack<R>
import * as HookTrigger_ from "./HookTrigger.js"
export { HookTrigger_ as HookTrigger }
export type HookTrigger = HookTrigger_.HookTrigger
import * as HookTriggers_ from "./HookTriggers.js"
export { HookTriggers_ as HookTriggers }
export type HookTriggers = HookTriggers_.HookTriggers
import * as InferenceRequest_ from "./InferenceRequest.js"
export { InferenceRequest_ as InferenceRequest }
export type InferenceRequest = InferenceRequest_.InferenceRequest
import * as InferenceResponse_ from "./InferenceResponse.js"
export { InferenceResponse_ as InferenceResponse }
export type InferenceResponse = InferenceResponse_.InferenceResponse
import * as Interceptor_ from "./Interceptor.js"
export { Interceptor_ as Interceptor }
export type Interceptor<R = never> = Interceptor_.Interceptor<R>
import * as Json_ from "./Json.js"
export { Json_ as Json }
import * as Message_ from "./Message.js"
export { Message_ as Message }
export type Message = Message_.Message
import * as Permission_ from "./Permission.js"
export { Permission_ as Permission }
import * as Step_ from "./Step.js"
export { Step_ as Step }
export type Step = Step_.Step
import * as StopReason_ from "./StopReason.js"
export { StopReason_ as StopReason }
export type StopReason = StopReason_.StopReason
import * as StopSignal_ from "./StopSignal.js"
export { StopSignal_ as StopSignal }
export type StopSignal = StopSignal_.StopSignal
import * as ToolCall_ from "./ToolCall.js"
export { ToolCall_ as ToolCall }
export type ToolCall = ToolCall_.ToolCall
import * as ToolExecution_ from "./ToolExecution.js"
export { ToolExecution_ as ToolExecution }
export type ToolExecution = ToolExecution_.ToolExecution
import * as Truncation_ from "./Truncation.js"
export { Truncation_ as Truncation }
import * as Usage_ from "./Usage.js"
export { Usage_ as Usage }
export type Usage = Usage_.Usage
import * as WrapHook_ from "./WrapHook.js"
export { WrapHook_ as WrapHook }
export type WrapHook<E = unknown, R = never> = WrapHook_.WrapHook<E, R>
export { PassThroughInterceptor } from "./Interceptor.js"
export type { JsonValue, JsonObject, Metadata } from "./Json.js"
import * as Codecs_ from "./Codecs.js"
export { Codecs_ as Codecs }
