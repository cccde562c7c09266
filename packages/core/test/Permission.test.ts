import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, HookContext, Message, Permission, type HookTrigger } from "@hookline/core"

const state = AgentState.make({ id: "s", messages: [Message.user("hi")] })
const call = { id: "c1", name: "shell", arguments: { command: "rm -rf /" } }
const ctxAt = (trigger: HookTrigger) => HookContext.make({ trigger, state, createdAt: 100, ...(trigger === "BeforeToolUse" || trigger === "AfterToolUse" ? { toolCall: call } : {}) })
const toolCtx = ctxAt("BeforeToolUse")

const check = (options: Permission.Options<unknown, never>, ctx: HookContext = toolCtx) =>
  Effect.runPromise(Permission.make(options).run(ctx))

const blockReason = (ctx: HookContext): string | undefined =>
  ctx.toolExecutionBlocked && ctx.toolExecution?.status === "blocked" ? ctx.toolExecution.reason : undefined

describe("Permission.make", () => {
  it("allows a call only on true or { allow: true }", async () => {
    expect(await check({ decide: () => true })).toBe(toolCtx)
    expect(await check({ decide: () => ({ allow: true }) })).toBe(toolCtx)
    expect(await check({ decide: async () => true })).toBe(toolCtx)
    expect(await check({ decide: () => Effect.succeed(true) })).toBe(toolCtx)
  })

  it("denies on false, with the decision's reason when it gives one", async () => {
    expect(blockReason(await check({ decide: () => false }))).toBe("permission denied")
    expect(blockReason(await check({ decide: () => ({ allow: false, reason: "not on the allowlist" }) }))).toBe(
      "permission denied: not on the allowlist",
    )
  })

  it("denies anything that is not a clear yes", async () => {
    for (const answer of ["yes", 1, null, undefined, {}, { allow: "true" }]) {
      const decided = await check({ decide: () => answer as unknown as Permission.Decision })
      expect(blockReason(decided), JSON.stringify(answer)).toBe("permission denied")
    }
  })

  it("denies when the decision throws, rejects or fails, naming the failure", async () => {
    const thrown = await check({ decide: () => { throw new Error("policy service down") } })
    expect(blockReason(thrown)).toBe("permission denied: the permission check failed (policy service down)")
    const rejected = await check({ decide: () => Promise.reject(new Error("401 from the approval API")) })
    expect(blockReason(rejected)).toBe("permission denied: the permission check failed (401 from the approval API)")
    const failed = await check({ decide: () => Effect.fail("no such user") })
    expect(blockReason(failed)).toBe("permission denied: the permission check failed (no such user)")
  })

  it("denies when no decision comes within the timeout, and aborts the pending question", async () => {
    let signal: AbortSignal | undefined
    const decided = await check({
      timeout: "20 millis",
      decide: (_ctx, s) => {
        signal = s
        return new Promise<Permission.Decision>(() => {}) // a human who never answers
      },
    })
    expect(blockReason(decided)).toBe("permission denied: no decision within 20ms")
    expect(signal?.aborted).toBe(true)
  })

  it("denies when the decision is interrupted", async () => {
    expect(blockReason(await check({ decide: () => Effect.interrupt }))).toBe(
      "permission denied: the permission check was interrupted",
    )
  })

  it("never lifts a block and does not ask again for a blocked call", async () => {
    let asked = 0
    const blocked = HookContext.withToolExecutionBlocked(toolCtx, "blocked by policy")
    const decided = await check({ decide: () => ++asked > 0 }, blocked)
    expect(decided).toBe(blocked)
    expect(asked).toBe(0)
  })

  it("returns its input on any trigger but BeforeToolUse", async () => {
    let asked = 0
    for (const trigger of ["BeforeStep", "AfterToolUse", "AfterExecution"] as const) {
      const ctx = ctxAt(trigger)
      expect(await check({ decide: () => ++asked < 0 }, ctx)).toBe(ctx)
    }
    expect(asked).toBe(0)
  })

  it("rejects bad options with InvalidConfiguration naming the option", () => {
    const error = (f: () => unknown) => {
      try {
        f()
      } catch (e) {
        if (e instanceof AgentError.HooklineError) return e.error
        throw e
      }
      throw new Error("expected a HooklineError")
    }
    expect(error(() => Permission.make({ decide: "yes" as never }))).toMatchObject({ _tag: "InvalidConfiguration", path: "permission.decide" })
    expect(error(() => Permission.make({ decide: () => true, timeout: "soon" as never }))).toMatchObject({
      _tag: "InvalidConfiguration",
      path: "permission.timeout",
    })
  })
})
