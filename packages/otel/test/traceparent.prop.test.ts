// A stored envelope's trace context is untrusted: only a well-formed W3C traceparent with
// non-zero ids becomes a link; anything else is ignored, never thrown on; a span context
// written out reads back the same.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as Traceparent from "../src/internal/traceparent.js"

const hex = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n })

describe("Traceparent", () => {
  it("reads back what it writes", () => {
    fc.assert(fc.property(hex(32), hex(16), fc.constantFrom(0, 1), (traceId, spanId, flags) => {
      fc.pre(!/^0+$/.test(traceId) && !/^0+$/.test(spanId))
      const sc = { traceId, spanId, traceFlags: flags }
      expect(Traceparent.parse(Traceparent.format(sc))).toEqual({ ...sc, isRemote: true })
    }))
  })

  it("gives undefined for anything that is not a well-formed traceparent, and never throws", () => {
    fc.assert(fc.property(fc.oneof(fc.anything(), fc.string({ maxLength: 80 }), fc.constant(`00-${"0".repeat(32)}-${"1".repeat(16)}-01`)), (u) => {
      const sc = Traceparent.parse(u)
      if (sc === undefined) return
      expect(typeof u).toBe("string")
      expect(u).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
      expect(sc.traceId).not.toMatch(/^0+$/)
      expect(sc.spanId).not.toMatch(/^0+$/)
    }), { numRuns: 1000 })
    expect(Traceparent.parse(`00-${"0".repeat(32)}-${"1".repeat(16)}-01`)).toBeUndefined()
    expect(Traceparent.parse(`00-${"a".repeat(32)}-${"0".repeat(16)}-01`)).toBeUndefined()
    expect(Traceparent.parse(`00-${"A".repeat(32)}-${"1".repeat(16)}-01`)).toBeUndefined()
  })
})
