import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { CostBudget } from "@hookline/middleware"

// Model names as providers spell them: lower-case words and versions joined by - or .
const modelName = fc.array(fc.stringMatching(/^[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 4 }).map((parts) => parts.join("-"))
const date = fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2035-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))
// The three spellings of a release date the providers answer with.
const dated = fc.tuple(modelName, date, fc.constantFrom("openai", "anthropic", "vertex")).map(([name, day, style]) =>
  style === "openai" ? `${name}-${day}` : `${name}${style === "vertex" ? "@" : "-"}${day.replaceAll("-", "")}`
)

describe("CostBudget", () => {
  describe("priceOf", () => {
    it("prices every dated id of a model by its undated entry", () => {
      fc.assert(fc.property(modelName, date, fc.constantFrom("-", "@"), (name, day, sep) => {
        const price = { input: 1, output: 2 }
        const table = { [name]: price }
        expect(CostBudget.priceOf(table, `${name}-${day}`)).toBe(price)
        expect(CostBudget.priceOf(table, `${name}${sep}${day.replaceAll("-", "")}`)).toBe(price)
      }))
    })

    it("prices an id only by its own entry or its undated one, never by another model's", () => {
      fc.assert(fc.property(fc.uniqueArray(modelName, { minLength: 1, maxLength: 4 }), fc.oneof(modelName, dated), (names, id) => {
        const table = Object.fromEntries(names.map((n, i) => [n, { input: i, output: 0 }]))
        const price = CostBudget.priceOf(table, id)
        const own = names.includes(id) ? id : CostBudget.undated(id)
        expect(price).toBe(own !== undefined && names.includes(own) ? table[own] : undefined)
      }))
    })

    it("asks a price function for the id as the model reported it", () => {
      fc.assert(fc.property(fc.oneof(modelName, dated), (id) => {
        const seen: Array<string> = []
        CostBudget.priceOf((m) => (seen.push(m), undefined), id)
        expect(seen).toEqual([id])
      }))
    })
  })
})
