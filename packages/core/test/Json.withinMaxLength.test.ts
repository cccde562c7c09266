// The one length check of a caller's string (hook names, built-in texts, a context
// config's prompt): the string itself up to the bound, the caller's refusal past it.
import { describe, expect, it } from "vitest"
import { AgentError, Json } from "../src/index.js"

const refuse = (length: number, limit: number): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration("field", `${length} > ${limit}`))
}

describe("Json.withinMaxLength", () => {
  const atLimit = "x".repeat(Json.maxStringLength)

  it("gives a string of up to Json.maxStringLength characters back as it is, refusal unasked", () => {
    expect(Json.withinMaxLength("", refuse)).toBe("")
    expect(Json.withinMaxLength(atLimit, refuse)).toBe(atLimit)
  })

  it("throws the caller's refusal for a longer one, given its length and the limit", () => {
    const asked: Array<readonly [number, number]> = []
    expect(() =>
      Json.withinMaxLength(`${atLimit}x`, (length, limit) => {
        asked.push([length, limit])
        return refuse(length, limit)
      })
    ).toThrow(`${Json.maxStringLength + 1} > ${Json.maxStringLength}`)
    expect(asked).toEqual([[Json.maxStringLength + 1, Json.maxStringLength]])
  })
})
