import { Effect, Stream } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AgentError, InferenceRequest, Message } from "@hookline/core"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { aiMajor, answer, sdkAccepts, specModel } from "./support/specModels.js"

const request = InferenceRequest.make({ systemPrompt: "Be brief.", messages: [Message.user("hello")] })
const signal = () => new AbortController().signal
const asModel = (model: unknown) => model as Parameters<typeof AiSdkDriver.make>[0]

const refusal = (make: () => unknown) => {
  try {
    make()
  } catch (error) {
    return error
  }
  throw new Error("expected make to throw")
}

describe(`AiSdkDriver model specification versions (ai ${aiMajor})`, () => {
  it("names the versions it drives: those the installed ai accepts", () => {
    expect(AiSdkDriver.supportedModelVersions).toEqual(sdkAccepts)
  })

  it.each(sdkAccepts)("drives a %s model: generate and stream, with its usage details", async (version) => {
    const model = specModel(version)
    const driver = AiSdkDriver.make(asModel(model))
    const generated = await Effect.runPromise(driver.generate(request, { signal: signal() }))
    const parts = await Effect.runPromise(Stream.runCollect(driver.stream(request, { signal: signal() })))
    const usage = { inputTokens: answer.input, outputTokens: answer.output, cachedInputTokens: answer.cached, reasoningTokens: answer.reasoning }
    expect(generated).toMatchObject({ text: answer.text, usage, finishReason: "stop", modelId: `model-${version}` })
    expect(parts.at(-1)).toEqual({ _tag: "Finish", response: generated })
    expect(model.calls).toEqual({ generate: 1, stream: 1 })
  })

  it.each([...["v1", "v4", "v5", "v9"].filter((v) => !sdkAccepts.includes(v)), "", "V3"])(
    "refuses a %j model with InvalidConfiguration naming it and the supported versions, before any call",
    (version) => {
      const model = specModel(version)
      const error = refusal(() => AiSdkDriver.make(asModel(model)))
      expect(error).toBeInstanceOf(AgentError.HooklineError)
      const { error: reason } = error as AgentError.HooklineError
      expect(reason).toMatchObject({ _tag: "InvalidConfiguration", path: "model" })
      expect(reason.message).toContain(JSON.stringify(version))
      for (const supported of sdkAccepts) expect(reason.message).toContain(`"${supported}"`)
      expect(reason.message).toContain("@hookline/ai-sdk")
      expect(model.calls).toEqual({ generate: 0, stream: 0 })
    },
  )

  // ai 6 only (ai 7 drives v4): the refusal names the fix.
  if (aiMajor === 6) it("on ai 6, a v4 model (an AI SDK 7 provider) is refused with the fix: install ai 7", () => {
    const { error } = refusal(() => AiSdkDriver.make(asModel(specModel("v4")))) as AgentError.HooklineError
    expect(error.message).toContain("ai@7")
  })

  it("refuses a model object without a specification version, and one that is no object", () => {
    for (const bad of [{ provider: "x", modelId: "m", doGenerate: () => {} }, 42, null]) {
      const error = refusal(() => AiSdkDriver.make(asModel(bad)))
      expect(error).toBeInstanceOf(AgentError.HooklineError)
      expect((error as AgentError.HooklineError).error).toMatchObject({ _tag: "InvalidConfiguration", path: "model" })
    }
  })

  it("refuses any other version, or a getter that throws, with InvalidConfiguration and a bounded message, never calling the model", () => {
    const version = fc.oneof(fc.string({ maxLength: 200 }), fc.constant(undefined), fc.integer(), fc.constant(null), fc.object())
      .filter((v) => !(typeof v === "string" && sdkAccepts.includes(v)))
    fc.assert(fc.property(version, fc.boolean(), (v, throwing) => {
      const model = specModel("v3")
      const hostile = Object.defineProperty({ ...model }, "specificationVersion", {
        get: () => {
          if (throwing) throw new Error("no version for you")
          return v
        },
      })
      const error = refusal(() => AiSdkDriver.make(asModel(hostile)))
      expect(error).toBeInstanceOf(AgentError.HooklineError)
      const reason = (error as AgentError.HooklineError).error
      expect(reason).toMatchObject({ _tag: "InvalidConfiguration", path: "model" })
      expect(reason.message.length).toBeLessThan(500)
      expect(model.calls).toEqual({ generate: 0, stream: 0 })
    }))
  })

  it("accepts a model id (a string): the AI SDK resolves it through its global provider at call time", () => {
    expect(AiSdkDriver.make("openai/gpt-4o-mini").modelId).toBe("openai/gpt-4o-mini")
  })
})
