/**
 * @hookline/agent: the agent loop, its builder, and the Driver and Tool contracts.
 *
 * @since 0.1.0
 */
import * as Driver_ from "./Driver.js"
export { Driver_ as Driver }
export type Driver = Driver_.DriverShape
import * as AgentEvent_ from "./AgentEvent.js"
export { AgentEvent_ as AgentEvent }
export type AgentEvent = AgentEvent_.AgentEvent
import * as AgentLoop_ from "./AgentLoop.js"
export { AgentLoop_ as AgentLoop }
export type AgentLoop<R = never> = AgentLoop_.AgentLoop<R>
import * as Agent_ from "./Agent.js"
export { Agent_ as Agent }
export type Agent = Agent_.Agent
import * as AgentBuilder_ from "./AgentBuilder.js"
export { AgentBuilder_ as AgentBuilder }
export type AgentBuilder = AgentBuilder_.AgentBuilder
export { UseAll, UseContextConfig, UseDriver, UseGuards, UseHook, UseInterceptor, UseLoader, UseLoopOptions, UseResource, UseTools, UseWrap } from "./AgentBuilder.js"
import * as ContextConfig_ from "./ContextConfig.js"
export { ContextConfig_ as ContextConfig }
export type ContextConfig = ContextConfig_.ContextConfig
export { ApplyContextConfigHook } from "./ContextConfig.js"
import * as Tool_ from "./Tool.js"
export { Tool_ as Tool }
export type Tool<A = any> = Tool_.Tool<A>
import * as Tools_ from "./Tools.js"
export { Tools_ as Tools }
export type Tools = Tools_.Tools
import * as Resource_ from "./Resource.js"
export { Resource_ as Resource }
export type Resource = Resource_.Resource
