import { AgentState, HookContext, HookStack, Guards, type Hook } from "@hookline/core"

const hook: Hook = (ctx) => HookContext.withMetadata(ctx, { seen: true })
const state: AgentState = AgentState.make({ id: "cjs" })
const stack: HookStack = HookStack.with(Guards.useGuards(), hook, { triggers: "BeforeStep", name: "seen" })
export const out: HookContext = HookStack.run(stack, HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 }))
