import { describe, expect, it } from "vitest"
import { AiSdkDriver } from "@hookline/ai-sdk"

describe("AiSdkDriver", () => {
  describe("retryAfterOf", () => {
    it("reads retry-after-ms first, then retry-after in seconds or as an HTTP date", () => {
      expect(AiSdkDriver.retryAfterOf({ "retry-after-ms": "250", "retry-after": "9" })).toBe(250)
      expect(AiSdkDriver.retryAfterOf({ "Retry-After": "2" })).toBe(2_000)
      expect(AiSdkDriver.retryAfterOf({ "retry-after": "Wed, 21 Oct 2015 07:28:10 GMT" }, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000)
    })

    it("gives undefined for no header or one it cannot read", () => {
      expect(AiSdkDriver.retryAfterOf(undefined)).toBeUndefined()
      expect(AiSdkDriver.retryAfterOf({})).toBeUndefined()
      expect(AiSdkDriver.retryAfterOf({ "retry-after": "soon" })).toBeUndefined()
      expect(AiSdkDriver.retryAfterOf({ "retry-after": "-3" })).toBeUndefined()
    })
  })
})
