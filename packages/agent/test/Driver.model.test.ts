import { AgentError, WrapHook } from "@hookline/core"
import { AgentBuilder, Driver, UseDriver, UseWrap } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"

// Every model call the loop makes, with the model it named before the call started.
const tapped = (seen: Array<string>) =>
  WrapHook.inference((ctx, next) =>
    next(ctx).pipe(Effect.provideService(Driver.AroundCall, (call, attempt) =>
      Effect.suspend(() => {
        seen.push(attempt.model === undefined ? "?" : `${attempt.model.provider}/${attempt.model.id}`)
        return call
      })))
  )

describe("Driver", () => {
  describe("model", () => {
    it("names the model and provider a driver calls (ScriptedDriver, Driver.make, fromPromise)", () => {
      expect(ScriptedDriver.make([], { modelId: "m-1" }).model).toEqual({ provider: "scripted", id: "m-1" })
      const made = Driver.make({ generate: () => Effect.die("unused"), model: { provider: "acme", id: "a-1" } })
      expect(Driver.modelOf(made)).toEqual({ provider: "acme", id: "a-1" })
      const lifted = Driver.fromPromise({ generate: async () => ({ text: "x" }), model: { provider: "acme", id: "a-2" } })
      expect(Driver.modelOf(lifted)).toEqual({ provider: "acme", id: "a-2" })
      expect(Driver.modelOf({ generate: () => Effect.die("unused"), stream: () => Effect.die("unused") } as never)).toBeUndefined()
      // A descriptor that is not strings is no descriptor (it comes from outside).
      expect(Driver.modelOf({ ...made, model: { provider: 1, id: "x" } } as never)).toBeUndefined()
    })

    it("keeps the server a descriptor names when it is a host and a port from 1 to 65535, and drops it otherwise", () => {
      const named = (server: unknown) => Driver.modelOf({ model: { provider: "acme", id: "a-1", server } })
      expect(named({ address: "api.acme.test", port: 8443 })).toEqual({ provider: "acme", id: "a-1", server: { address: "api.acme.test", port: 8443 } })
      expect(named({ address: "api.acme.test" })).toEqual({ provider: "acme", id: "a-1", server: { address: "api.acme.test" } })
      for (const bad of [{ address: "" }, { address: 7 }, { address: "h", port: 0 }, { address: "h", port: 70_000 }, { address: "h", port: 1.5 }, { address: "x".repeat(257) }, "h", null]) {
        expect(named(bad)).toEqual({ provider: "acme", id: "a-1" })
      }
      expect(Object.isFrozen(named({ address: "h", port: 1 })?.server)).toBe(true)
    })

    it("tells each attempt's model before the call starts, under a fallback too", async () => {
      const seen: Array<string> = []
      const primary = ScriptedDriver.make([ScriptedDriver.failure(AgentError.inferenceFailed("down"))], { modelId: "big" })
      const backup = ScriptedDriver.make([ScriptedDriver.text("ok")], { modelId: "small" })
      const fallback = WrapHook.inference((ctx, next) => Effect.catch(next(ctx), () => next(ctx, { model: backup })))
      const agent = AgentBuilder.build(AgentBuilder.of(UseDriver(primary), UseWrap(tapped(seen), { priority: 1000 }), UseWrap(fallback, { priority: 10 })))
      const final = await agent.run("hi")
      expect(final.execution.status).toBe("completed")
      expect(seen).toEqual(["scripted/big", "scripted/small"])
    })
  })
})
