import { AgentState, HookContext, HookStack, Guards, type Hook } from "@hookline/core"

const hook: Hook = (ctx) => HookContext.withMetadata(ctx, { seen: true })
const state: AgentState = AgentState.make({ id: "esm" })
const stack: HookStack = HookStack.with(Guards.useGuards(), hook, { triggers: "BeforeStep", name: "seen" })
export const out: HookContext = HookStack.run(stack, HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 }))

import { AgentBuilder, UseDriver, UseGuards, type Agent } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

export const agent: Agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])), UseGuards({ maxSteps: 3 }))
export const final: Promise<AgentState> = agent.run("hello")
