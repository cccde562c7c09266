import { pipe } from "effect/Function"
import { describe, expect, it } from "vitest"
import { AppendLog } from "@hookline/core"

describe("AppendLog", () => {
  describe("empty", () => {
    it("has no items", () => {
      const log = AppendLog.empty<number>()
      expect(log.length).toBe(0)
      expect([...log]).toEqual([])
      expect(log.last()).toBeUndefined()
    })
  })

  describe("fromIterable", () => {
    it("copies the items of an array, so later changes to the array do not show", () => {
      const source = [1, 2]
      const log = AppendLog.fromIterable(source)
      source.push(3)
      source[0] = 9
      expect([...log]).toEqual([1, 2])
    })

    it("accepts any iterable", () => {
      function* gen() {
        yield "a"
        yield "b"
      }
      expect([...AppendLog.fromIterable(gen())]).toEqual(["a", "b"])
      expect([...AppendLog.fromIterable(new Set([1, 2, 2]))]).toEqual([1, 2])
    })

    it("returns an AppendLog argument itself", () => {
      const log = AppendLog.fromIterable([1, 2, 3])
      expect(AppendLog.fromIterable(log)).toBe(log)
    })
  })

  describe("isAppendLog", () => {
    it("recognizes logs and rejects arrays and other values", () => {
      expect(AppendLog.isAppendLog(AppendLog.fromIterable([1]))).toBe(true)
      expect(AppendLog.isAppendLog(AppendLog.empty())).toBe(true)
      expect(AppendLog.isAppendLog([1])).toBe(false)
      expect(AppendLog.isAppendLog({ length: 0 })).toBe(false)
      expect(AppendLog.isAppendLog(null)).toBe(false)
      expect(AppendLog.isAppendLog("log")).toBe(false)
    })
  })

  describe("append", () => {
    it("leaves the snapshot it appended to unchanged", () => {
      const a = AppendLog.fromIterable([1, 2])
      const b = AppendLog.append(a, 3)
      expect([...a]).toEqual([1, 2])
      expect([...b]).toEqual([1, 2, 3])
    })

    it("keeps every old item by reference in the new snapshot", () => {
      const x = { n: 1 }
      const y = { n: 2 }
      const a = AppendLog.fromIterable([x, y])
      const b = AppendLog.append(a, { n: 3 })
      expect(b.at(0)).toBe(x)
      expect(b.at(1)).toBe(y)
    })

    it("leaves a newer snapshot unchanged when an older one is appended to", () => {
      const a = AppendLog.fromIterable([1])
      const b = AppendLog.append(a, 2)
      const branch = AppendLog.append(a, 20)
      expect([...b]).toEqual([1, 2])
      expect([...branch]).toEqual([1, 20])
      expect([...a]).toEqual([1])
    })

    it("leaves a branch unchanged when the newest snapshot is appended to", () => {
      const a = AppendLog.fromIterable([1])
      const b = AppendLog.append(a, 2)
      const branch = AppendLog.append(a, 20)
      const c = AppendLog.append(b, 3)
      const branch2 = AppendLog.append(branch, 30)
      expect([...c]).toEqual([1, 2, 3])
      expect([...branch]).toEqual([1, 20])
      expect([...branch2]).toEqual([1, 20, 30])
      expect([...b]).toEqual([1, 2])
    })

    it("branches safely from the empty log", () => {
      const e = AppendLog.empty<string>()
      const a = AppendLog.append(e, "a")
      const b = AppendLog.append(e, "b")
      expect([...a]).toEqual(["a"])
      expect([...b]).toEqual(["b"])
      expect(e.length).toBe(0)
    })

    it("gives the same result data-first and data-last", () => {
      const a = AppendLog.fromIterable([1, 2])
      expect([...pipe(a, AppendLog.append(3))]).toEqual([...AppendLog.append(a, 3)])
    })
  })

  describe("appendAll", () => {
    it("appends every item in order", () => {
      const a = AppendLog.fromIterable([1])
      expect([...AppendLog.appendAll(a, [2, 3, 4])]).toEqual([1, 2, 3, 4])
      expect([...a]).toEqual([1])
    })

    it("returns the same log when there is nothing to append", () => {
      const a = AppendLog.fromIterable([1])
      expect(AppendLog.appendAll(a, [])).toBe(a)
    })

    it("gives the same result data-first and data-last", () => {
      const a = AppendLog.fromIterable([1])
      expect([...pipe(a, AppendLog.appendAll([2, 3]))]).toEqual([...AppendLog.appendAll(a, [2, 3])])
    })
  })

  describe("length", () => {
    it("counts only the items of its own snapshot", () => {
      const a = AppendLog.fromIterable(["x", "y"])
      const b = AppendLog.appendAll(a, ["z", "w"])
      expect(a.length).toBe(2)
      expect(b.length).toBe(4)
    })
  })

  describe("at", () => {
    const log = AppendLog.fromIterable(["a", "b", "c"])

    it("reads an item by its index", () => {
      expect(log.at(0)).toBe("a")
      expect(log.at(2)).toBe("c")
    })

    it("counts negative indices from the end", () => {
      expect(log.at(-1)).toBe("c")
      expect(log.at(-3)).toBe("a")
    })

    it("returns undefined out of range", () => {
      expect(log.at(3)).toBeUndefined()
      expect(log.at(-4)).toBeUndefined()
    })

    it("does not see items a newer snapshot appended", () => {
      AppendLog.append(log, "d")
      expect(log.at(3)).toBeUndefined()
      expect(log.at(-1)).toBe("c")
    })

    // Array.prototype.at truncates a fractional index; AppendLog.at returns undefined.
    it("truncates a fractional index like Array.prototype.at", () => {
      expect(log.at(1.5)).toBe(["a", "b", "c"].at(1.5))
    })
  })

  describe("last", () => {
    it("returns the last item of its own snapshot", () => {
      const a = AppendLog.fromIterable([1, 2])
      const b = AppendLog.append(a, 3)
      expect(a.last()).toBe(2)
      expect(b.last()).toBe(3)
    })

    it("returns undefined on an empty log", () => {
      expect(AppendLog.empty().last()).toBeUndefined()
    })
  })

  describe("slice", () => {
    const items = [1, 2, 3, 4, 5]
    const log = AppendLog.fromIterable(items)

    it("reads the items in [start, end)", () => {
      expect(log.slice(1, 3)).toEqual([2, 3])
      expect(log.slice()).toEqual(items)
      expect(log.slice(2)).toEqual([3, 4, 5])
    })

    it("counts negative indices from the end", () => {
      expect(log.slice(-2)).toEqual(items.slice(-2))
      expect(log.slice(-4, -1)).toEqual(items.slice(-4, -1))
      expect(log.slice(1, -1)).toEqual(items.slice(1, -1))
    })

    it("clamps out-of-range indices like Array.prototype.slice", () => {
      expect(log.slice(-99)).toEqual(items.slice(-99))
      expect(log.slice(3, 99)).toEqual(items.slice(3, 99))
      expect(log.slice(99)).toEqual([])
      expect(log.slice(4, 2)).toEqual([])
    })

    it("returns a frozen array", () => {
      expect(Object.isFrozen(log.slice(1))).toBe(true)
    })

    it("does not include items a newer snapshot appended", () => {
      const older = AppendLog.fromIterable([1, 2])
      AppendLog.appendAll(older, [3, 4])
      expect(older.slice()).toEqual([1, 2])
      expect(older.slice(0, 10)).toEqual([1, 2])
      expect(older.slice(-1)).toEqual([2])
    })

    // Array.prototype.slice turns NaN into 0 and truncates fractions toward zero;
    // AppendLog.slice returns [] for slice(NaN) and reads slice(-1.5) as slice(1.5) = slice(1).
    it("treats NaN and fractional indices like Array.prototype.slice", () => {
      expect(log.slice(Number.NaN)).toEqual(items.slice(Number.NaN))
      expect(log.slice(-1.5)).toEqual(items.slice(-1.5))
    })
  })

  describe("toArray", () => {
    it("returns the items as a frozen array", () => {
      const arr = AppendLog.fromIterable([1, 2]).toArray()
      expect(arr).toEqual([1, 2])
      expect(Object.isFrozen(arr)).toBe(true)
    })

    it("returns the same reference on repeated calls", () => {
      const log = AppendLog.fromIterable([1, 2])
      expect(log.toArray()).toBe(log.toArray())
    })

    it("is not changed by later appends", () => {
      const log = AppendLog.fromIterable([1, 2])
      const arr = log.toArray()
      AppendLog.append(log, 3)
      expect(arr).toEqual([1, 2])
      expect(log.toArray()).toEqual([1, 2])
    })
  })

  describe("iteration", () => {
    it("yields the items of its own snapshot in order", () => {
      const a = AppendLog.fromIterable(["a"])
      const b = AppendLog.appendAll(a, ["b", "c"])
      const seen: Array<string> = []
      for (const item of a) seen.push(item)
      expect(seen).toEqual(["a"])
      expect(Array.from(b)).toEqual(["a", "b", "c"])
    })
  })

  describe("toJSON", () => {
    it("serializes as a plain array", () => {
      const log = AppendLog.appendAll(AppendLog.empty<unknown>(), [1, { a: "b" }, null])
      expect(JSON.stringify(log)).toBe("[1,{\"a\":\"b\"},null]")
      expect(JSON.stringify({ messages: log })).toBe("{\"messages\":[1,{\"a\":\"b\"},null]}")
    })

    it("serializes only the items of its own snapshot", () => {
      const a = AppendLog.fromIterable([1])
      AppendLog.append(a, 2)
      expect(JSON.stringify(a)).toBe("[1]")
    })
  })

  describe("instances", () => {
    it("are frozen", () => {
      const log = AppendLog.fromIterable([1])
      expect(Object.isFrozen(log)).toBe(true)
      expect(Object.isFrozen(AppendLog.append(log, 2))).toBe(true)
      expect(Object.isFrozen(AppendLog.empty())).toBe(true)
    })

    it("reject new properties", () => {
      const log = AppendLog.fromIterable([1]) as unknown as Record<string, unknown>
      expect(() => {
        log["extra"] = 1
      }).toThrow(TypeError)
      expect(log["extra"]).toBeUndefined()
    })
  })

  describe("equality", () => {
    it("compares logs by their items under toEqual", () => {
      expect(AppendLog.fromIterable([1, 2])).not.toEqual(AppendLog.fromIterable([1, 3]))
      expect(AppendLog.fromIterable([1, 2])).toEqual(AppendLog.append(AppendLog.fromIterable([1]), 2))
    })
  })
})
