// A driver's model descriptor comes from outside (a driver anyone wrote): whatever it
// is, `Driver.modelOf` never throws and gives either no descriptor or a frozen one of two
// bounded, non-empty strings.
import { Driver } from "@hookline/agent"
import fc from "fast-check"
import { describe, expect, it } from "vitest"

const hostile = fc.oneof(
  fc.anything(),
  fc.record({ provider: fc.anything(), id: fc.anything() }),
  fc.record({ provider: fc.string({ maxLength: 300 }), id: fc.string({ maxLength: 300 }) }),
  fc.constant(Object.defineProperty({}, "provider", { get: () => { throw new Error("getter") } })),
)

describe("Driver.modelOf", () => {
  it("never throws, and gives undefined or a frozen descriptor of two non-empty strings of at most 256 characters", () => {
    fc.assert(fc.property(hostile, (model) => {
      const descriptor = Driver.modelOf({ model })
      if (descriptor === undefined) return
      expect(Object.isFrozen(descriptor)).toBe(true)
      expect(Object.keys(descriptor).sort()).toEqual(["id", "provider"])
      for (const s of [descriptor.provider, descriptor.id]) {
        expect(typeof s).toBe("string")
        expect(s.length).toBeGreaterThan(0)
        expect(s.length).toBeLessThanOrEqual(256)
      }
    }), { numRuns: 500 })
  })

  it("never throws on a driver whose model getter throws", () => {
    const driver = Object.defineProperty({}, "model", { get: () => { throw new Error("boom") } })
    expect(Driver.modelOf(driver)).toBeUndefined()
  })
})
