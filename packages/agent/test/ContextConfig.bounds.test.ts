// The context config is checked where it enters (branch edges3): `UseContextConfig` when
// the agent is built, `ApplyContextConfigHook` when the hook is made. A prompt past
// `Json.maxStringLength` built, then failed every run at its first step (the hook's
// return is held to the bound); a prompt that is not a string crashed the hook's maker
// with a TypeError; a getter was read twice, the second answer unchecked.
import { AgentError, Json } from "@hookline/core"
import { AgentBuilder, ApplyContextConfigHook, UseContextConfig, UseDriver } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { describe, expect, it } from "vitest"
import { invalidConfiguration } from "./support.js"

const driver = () => UseDriver(ScriptedDriver.make([ScriptedDriver.text("ok")]))
const long = "x".repeat(Json.maxStringLength + 1)

describe("UseContextConfig", () => {
  it("refuses a system prompt past Json.maxStringLength when the agent is built, naming it and the limit", () => {
    const error = invalidConfiguration(() => AgentBuilder.make(driver(), UseContextConfig({ systemPrompt: long })))
    expect(error.path).toBe("capabilities[1].systemPrompt")
    expect(error.message).toContain(`past the limit of ${Json.maxStringLength}`)
  })

  it("builds with a prompt at the bound", () => {
    expect(() => AgentBuilder.make(driver(), UseContextConfig({ systemPrompt: "p".repeat(Json.maxStringLength) }))).not.toThrow()
  })

  it("reads each field once: the prompt the run uses is the one that was checked", async () => {
    let reads = 0
    const config = {
      get systemPrompt() {
        reads++
        return reads === 1 ? "Be terse." : (42 as unknown as string)
      },
    }
    const scripted = ScriptedDriver.make([ScriptedDriver.text("ok")])
    const agent = AgentBuilder.make(UseDriver(scripted), UseContextConfig(config))
    await agent.run("hi")
    expect(scripted.requests[0]?.systemPrompt).toBe("Be terse.")
    expect(reads).toBe(1)
  })

  it("names a getter that throws at the capability", () => {
    const config = {
      get systemPrompt(): string {
        throw new Error("no")
      },
    }
    expect(invalidConfiguration(() => AgentBuilder.make(driver(), UseContextConfig(config))).path).toMatch(/^capabilities\[1\]/)
  })
})

describe("ApplyContextConfigHook", () => {
  it.each([
    ["a number", { systemPrompt: 42 }, "systemPrompt"],
    ["a prompt past the bound", { systemPrompt: long }, "systemPrompt"],
    ["a bad response format", { responseFormat: { type: "xml" } }, "responseFormat.type"],
    ["an unknown key", { systemPromt: "S." }, "systemPromt"],
  ])("throws InvalidConfiguration for %s, naming it", (_, config, path) => {
    expect(invalidConfiguration(() => ApplyContextConfigHook(config as never)).path).toBe(path)
  })

  it("throws InvalidConfiguration for a config that is not an object", () => {
    expect(() => ApplyContextConfigHook(null as never)).toThrow(AgentError.HooklineError)
  })
})
