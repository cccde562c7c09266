/**
 * @hookline/agent: the agent loop, its builder, and the Driver and Tool contracts.
 *
 * @since 0.1.0
 */
import * as Driver_ from "./Driver.js"
export { Driver_ as Driver }
/**
 * A driver value (what `UseDriver` takes): `Driver.DriverShape`. The namespace
 * `Driver` holds the constructors (`make`, `fromPromise`, `toPromise`), the shape
 * types and `Driver.Service`, the Effect service key.
 *
 * @deprecated Write `Driver.DriverShape`; this alias of the same name as the namespace confused users.
 */
export type Driver = Driver_.DriverShape
import * as AgentEvent_ from "./AgentEvent.js"
export { AgentEvent_ as AgentEvent }
export type AgentEvent = AgentEvent_.AgentEvent
import * as AgentLoop_ from "./AgentLoop.js"
export { AgentLoop_ as AgentLoop }
export type AgentLoop<R = never, C = unknown> = AgentLoop_.AgentLoop<R, C>
import * as Agent_ from "./Agent.js"
export { Agent_ as Agent }
export type Agent<C = unknown> = Agent_.Agent<C>
import * as AgentBuilder_ from "./AgentBuilder.js"
export { AgentBuilder_ as AgentBuilder }
export type AgentBuilder<C = unknown> = AgentBuilder_.AgentBuilder<C>
export { UseAll, UseAroundRun, UseContextConfig, UseDriver, UseGuards, UseHook, UseHookListener, UseHooks, UseInterceptor, UseLoader, UseLoopOptions, UseResource, UseRunContext, UseTools, UseWrap } from "./AgentBuilder.js"
import * as ContextConfig_ from "./ContextConfig.js"
export { ContextConfig_ as ContextConfig }
export type ContextConfig = ContextConfig_.ContextConfig
export { ApplyContextConfigHook } from "./ContextConfig.js"
import * as Decision_ from "./Decision.js"
export { Decision_ as Decision }
export type Decision = Decision_.Decision
import * as Subagent_ from "./Subagent.js"
export { Subagent_ as Subagent }
import * as Tool_ from "./Tool.js"
export { Tool_ as Tool }
export type Tool<A = any, C = any> = Tool_.Tool<A, C>
import * as Tools_ from "./Tools.js"
export { Tools_ as Tools }
export type Tools = Tools_.Tools
import * as Resource_ from "./Resource.js"
export { Resource_ as Resource }
export type Resource = Resource_.Resource
