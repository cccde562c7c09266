import { describe, expect, it } from "vitest"
import { Effect } from "effect"
import * as t from "io-ts"
import { AgentBuilder, Resource, Tool, Tools, UseDriver, UseResource, UseTools } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"

const echo = (name: string) => Tool.make({ name, parameters: t.type({}), execute: () => name })

describe("Resource", () => {
  describe("UseResource", () => {
    it("opens the resource for each run and closes it when the run ends", async () => {
      const log: Array<string> = []
      let n = 0
      const resource = Resource.make({
        name: "test:counter",
        open: Effect.acquireRelease(
          Effect.sync(() => {
            const id = ++n
            log.push(`open ${id}`)
            return { id, tools: () => [echo("from_resource")] }
          }),
          ({ id }) => Effect.sync(() => log.push(`close ${id}`)),
        ),
      })
      const driver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ name: "from_resource", arguments: {} }]),
        ScriptedDriver.text("one"),
        ScriptedDriver.text("two"),
      ])
      const agent = AgentBuilder.make(UseDriver(driver), UseTools([echo("own")]), UseResource(resource))
      const first = await agent.run("go")
      expect([...first.context.messages].find((m) => m.role === "tool")?.content).toBe("from_resource")
      expect(driver.requests[0]?.tools.map((d) => d.name)).toEqual(["own", "from_resource"])
      await agent.run("again")
      expect(log).toEqual(["open 1", "close 1", "open 2", "close 2"])
    })

    it("stops a run aborted while a resource opens, at once: the opening is interrupted, no model call", async () => {
      const controller = new AbortController()
      const log: Array<string> = []
      const hanging = Resource.make({
        name: "test:hanging",
        // Opens only when interrupted: the abort must interrupt it.
        open: Effect.sync(() => {
          log.push("opening")
          controller.abort()
        }).pipe(Effect.andThen(Effect.never), Effect.onInterrupt(() => Effect.sync(() => log.push("interrupted")))),
      })
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      const final = await AgentBuilder.make(UseDriver(driver), UseResource(hanging)).run("go", { signal: controller.signal })
      expect(final.execution.status).toBe("stopped")
      expect(log).toEqual(["opening", "interrupted"])
      expect(driver.requests).toHaveLength(0)
    })

    it("rejects the run with the error of a resource that cannot open, before any model call", async () => {
      const driver = ScriptedDriver.make([ScriptedDriver.text("never")])
      const failing = Resource.make({ name: "test:down", open: Effect.fail(new Error("down")) })
      await expect(AgentBuilder.make(UseDriver(driver), UseResource(failing)).run("go")).rejects.toThrow("down")
      expect(driver.requests).toHaveLength(0)
    })

    it("refuses a value that is not a resource", () => {
      expect(() => AgentBuilder.make(UseResource({ name: "x" } as never))).toThrow(/capabilities\[0\]\.resource/)
    })
  })
})

describe("Tools", () => {
  describe("live", () => {
    it("reads its sources on every access, keeps the base's names, and rebuilds only on a change", () => {
      let list: ReadonlyArray<Tool> = [echo("a"), echo("base")]
      const tools = Tools.live(Tools.make([echo("base")]), [() => list])
      expect(tools.definitions.map((d) => d.name)).toEqual(["base", "a"])
      expect(tools.definitions).toBe(tools.definitions)
      list = [echo("b")]
      expect(tools.definitions.map((d) => d.name)).toEqual(["base", "b"])
      expect(tools.byName.has("a")).toBe(false)
      expect(Tools.get(tools, "b")?.name).toBe("b")
    })
  })
})
