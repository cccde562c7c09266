import { describe, expect, it } from "vitest"
import * as t from "io-ts"
import { AgentBuilder, UseDriver } from "@hookline/agent"
import { Output, UseOutput } from "@hookline/middleware"
import { ScriptedDriver } from "@hookline/testing"
import { StopSignal } from "@hookline/core"

const City = t.type({ city: t.string, population: t.number })

describe("Output", () => {
  describe("make", () => {
    it("asks for JSON with the schema and gives the decoded answer, typed", async () => {
      const answer = Output.make(City)
      const driver = ScriptedDriver.make([ScriptedDriver.text("```json\n{\"city\":\"Tokyo\",\"population\":37400068}\n```")])
      const final = await AgentBuilder.make(UseDriver(driver), answer.use).run("Largest city?")
      expect(driver.requests[0]?.responseFormat).toEqual({
        type: "json",
        name: "output",
        schema: expect.objectContaining({ type: "object", required: ["city", "population"] }),
      })
      const value: { readonly city: string; readonly population: number } | undefined = await answer.value(final)
      expect(value).toEqual({ city: "Tokyo", population: 37400068 })
      expect(final.execution.status).toBe("completed")
      expect(answer.error(final)).toBeUndefined()
    })

    it("feeds a bad answer back with its path and takes the corrected one", async () => {
      const answer = Output.make(City)
      const driver = ScriptedDriver.make([
        ScriptedDriver.text("{\"city\":\"Tokyo\",\"population\":\"many\"}"),
        ScriptedDriver.text("{\"city\":\"Tokyo\",\"population\":37400068}"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), answer.use).run("Largest city?")
      const feedback = driver.requests[1]?.messages.at(-1)
      expect(feedback?.role).toBe("user")
      expect(feedback?.content).toContain("at population")
      expect(await answer.value(final)).toEqual({ city: "Tokyo", population: 37400068 })
    })

    it("stops the run with OutputInvalid after the retries", async () => {
      const answer = Output.make(City, { retries: 1 })
      const driver = ScriptedDriver.make([ScriptedDriver.text("Tokyo!"), ScriptedDriver.text("{\"city\":1}"), ScriptedDriver.text("never")])
      const final = await AgentBuilder.make(UseDriver(driver), answer.use).run("Largest city?")
      expect(driver.requests).toHaveLength(2)
      expect(final.execution.status).toBe("stopped")
      expect(StopSignal.highest(final.execution.stopSignals)).toMatchObject({ reason: "OutputInvalid", source: Output.name })
      expect(answer.error(final)).toEqual({ _tag: "OutputInvalid", path: "city", message: expect.any(String), attempts: 2 })
      expect(await answer.value(final)).toBeUndefined()
    })

    it("refuses a schema that is not an object schema and bad options", () => {
      expect(() => Output.make(t.string)).toThrow(/object/)
      expect(() => Output.make(City, { retries: -1 })).toThrow(/options\.retries/)
    })
  })

  describe("UseOutput", () => {
    it("is a capability like the other built-ins that also reads the typed answer back", async () => {
      const answer = UseOutput(City, { retries: 1 })
      const driver = ScriptedDriver.make([
        ScriptedDriver.text("{\"city\":\"Tokyo\",\"population\":\"many\"}"),
        ScriptedDriver.text("{\"city\":\"Tokyo\",\"population\":37400068}"),
      ])
      const final = await AgentBuilder.make(UseDriver(driver), answer).run("Largest city?")
      expect(driver.requests[0]?.responseFormat).toMatchObject({ type: "json", name: "output" })
      const value: { readonly city: string; readonly population: number } | undefined = await answer.value(final)
      expect(value).toEqual({ city: "Tokyo", population: 37400068 })
      expect(answer.error(final)).toBeUndefined()
    })

    it("registers the same hook as Output.make(...).use", () => {
      const use = UseOutput(City)
      const made = Output.make(City).use
      expect(use._tag).toBe(made._tag)
      expect(use._tag === "UseHook" && made._tag === "UseHook" ? use.options : undefined).toEqual(made._tag === "UseHook" ? made.options : null)
      expect(Object.isFrozen(use)).toBe(true)
    })

    it("refuses a schema that is not an object schema and bad options", () => {
      expect(() => UseOutput(t.string)).toThrow(/object/)
      expect(() => UseOutput(City, { retries: -1 })).toThrow(/options\.retries/)
    })
  })
})
