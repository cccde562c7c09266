import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { StopReason, StopSignal } from "@hookline/core"
import { stopSignal } from "./arbitraries.js"

// DESIGN.md, Data: the reasons in priority order, highest first.
const designOrder = [
  "ErrorForbade",
  "StopRequested",
  "UserRequested",
  "StepsLimitReached",
  "TokenLimitReached",
  "TimeLimitReached",
  "FinishReasonReceived",
  "Completed",
] as const
const hard = ["ErrorForbade", "UserRequested", "StepsLimitReached", "TokenLimitReached", "TimeLimitReached"]

describe("StopReason", () => {
  describe("all", () => {
    it("lists every reason in priority order, highest first", () => {
      expect(StopReason.all).toEqual(designOrder)
    })

    it("is frozen", () => {
      expect(Object.isFrozen(StopReason.all)).toBe(true)
    })
  })

  describe("priority", () => {
    it("decreases along all: ErrorForbade highest, Completed lowest", () => {
      const priorities = StopReason.all.map(StopReason.priority)
      priorities.slice(1).forEach((p, i) => expect(p).toBeLessThan(priorities[i]!))
      expect(Math.max(...priorities)).toBe(StopReason.priority("ErrorForbade"))
      expect(Math.min(...priorities)).toBe(StopReason.priority("Completed"))
    })
  })

  describe("Order", () => {
    it("sorts reasons lowest priority first", () => {
      const sorted = [...StopReason.all].sort(StopReason.Order.compare)
      expect(sorted).toEqual([...designOrder].reverse())
    })

    it("compares equal reasons as equal", () => {
      expect(StopReason.Order.compare("Completed", "Completed")).toBe(0)
      expect(StopReason.Order.equals("Completed", "Completed")).toBe(true)
      expect(StopReason.Order.equals("Completed", "ErrorForbade")).toBe(false)
    })
  })

  describe("isHard", () => {
    it.each(designOrder.map((r) => [r, hard.includes(r)] as const))("says %s is hard: %s", (reason, expected) => {
      expect(StopReason.isHard(reason)).toBe(expected)
    })
  })

  describe("isStopReason", () => {
    it("accepts every reason", () => {
      expect(StopReason.all.every(StopReason.isStopReason)).toBe(true)
    })

    it("rejects other values", () => {
      expect(StopReason.isStopReason("Done")).toBe(false)
      expect(StopReason.isStopReason(1)).toBe(false)
      expect(StopReason.isStopReason(undefined)).toBe(false)
    })

    // `u in rank` also finds the keys of Object.prototype.
    it("rejects the names of Object.prototype members", () => {
      expect(StopReason.isStopReason("toString")).toBe(false)
      expect(StopReason.isStopReason("constructor")).toBe(false)
    })
  })
})

describe("StopSignal", () => {
  describe("make", () => {
    it("builds a frozen signal", () => {
      const signal = StopSignal.make("Completed", "done", "loop")
      expect(signal).toEqual({ reason: "Completed", message: "done", source: "loop" })
      expect(Object.isFrozen(signal)).toBe(true)
    })
  })

  describe("highest", () => {
    it("picks the signal with the highest-priority reason", () => {
      const completed = StopSignal.make("Completed", "", "loop")
      const steps = StopSignal.make("StepsLimitReached", "", "guard:steps_limit")
      const user = StopSignal.make("UserRequested", "", "abort")
      expect(StopSignal.highest([completed, steps, user])).toBe(user)
      expect(StopSignal.highest([user, steps, completed])).toBe(user)
    })

    it("picks the first among signals of equal priority", () => {
      const a = StopSignal.make("TokenLimitReached", "a", "one")
      const b = StopSignal.make("TokenLimitReached", "b", "two")
      expect(StopSignal.highest([a, b])).toBe(a)
      expect(StopSignal.highest([b, a])).toBe(b)
    })

    it("returns undefined for no signals", () => {
      expect(StopSignal.highest([])).toBeUndefined()
    })

    it("reads any iterable", () => {
      function* signals() {
        yield StopSignal.make("Completed", "", "loop")
        yield StopSignal.make("ErrorForbade", "", "loop")
      }
      expect(StopSignal.highest(signals())?.reason).toBe("ErrorForbade")
    })

    it("returns a signal of the maximum priority, the first of them", () => {
      fc.assert(
        fc.property(fc.array(stopSignal, { minLength: 1, maxLength: 8 }), (signals) => {
          const best = StopSignal.highest(signals)!
          const max = Math.max(...signals.map(StopSignal.priority))
          expect(StopSignal.priority(best)).toBe(max)
          expect(best).toBe(signals.find((s) => StopSignal.priority(s) === max))
        }),
      )
    })
  })

  describe("isHard", () => {
    it("follows the signal's reason", () => {
      for (const reason of designOrder) {
        expect(StopSignal.isHard(StopSignal.make(reason, "", "x"))).toBe(hard.includes(reason))
      }
    })
  })
})
