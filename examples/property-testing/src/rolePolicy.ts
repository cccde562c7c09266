// A policy that reads who is asking: the caller's role comes with each run as its
// context (`agent.run(input, { context: { role } })`), never stored in the state.
// Viewers may only read; the typed run context needs no cast and no undefined check.
import { HookContext, HookTrigger, HookTriggers, type Hook } from "@hookline/core"

export interface Caller {
  readonly role: "admin" | "editor" | "viewer"
}

/** The tools each role may call. */
export const allowed: Readonly<Record<Caller["role"], ReadonlyArray<string>>> = {
  admin: ["search", "write_file", "shell"],
  editor: ["search", "write_file"],
  viewer: ["search"],
}

/** Blocks a call the caller's role may not make. */
export const rolePolicy: Hook<Caller> = (ctx) => {
  const call = ctx.toolCall
  if (call === undefined || ctx.toolExecutionBlocked || allowed[ctx.runContext.role].includes(call.name)) return ctx
  return HookContext.withToolExecutionBlocked(ctx, `a ${ctx.runContext.role} may not call ${call.name}`)
}

export const rolePolicyOptions = { triggers: HookTriggers.of(HookTrigger.BeforeToolUse), priority: 150, name: "policy:role" }
