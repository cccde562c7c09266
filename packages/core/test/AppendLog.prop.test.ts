import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { AppendLog } from "@hookline/core"

// A snapshot and its model: the plain array it must always read as.
interface Snapshot {
  readonly log: AppendLog<number>
  readonly model: ReadonlyArray<number>
}

type Command =
  | { readonly kind: "append"; readonly from: number; readonly item: number }
  | { readonly kind: "appendAll"; readonly from: number; readonly items: ReadonlyArray<number> }
  | { readonly kind: "read"; readonly from: number }

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), from: fc.nat(), item: fc.integer() }),
  fc.record({ kind: fc.constant("appendAll" as const), from: fc.nat(), items: fc.array(fc.integer(), { maxLength: 3 }) }),
  fc.record({ kind: fc.constant("read" as const), from: fc.nat() }),
)

// Appends mostly to the newest snapshot (the shared-store path), sometimes to an older one (a branch).
const pick = (snapshots: ReadonlyArray<Snapshot>, from: number): Snapshot =>
  snapshots[from % 3 === 0 ? from % snapshots.length : snapshots.length - 1]!

const agrees = ({ log, model }: Snapshot) => {
  expect(log.length).toBe(model.length)
  expect([...log]).toEqual(model)
  expect(log.toArray()).toEqual(model)
  expect(log.last()).toBe(model.at(-1))
  expect(JSON.stringify(log)).toBe(JSON.stringify(model))
}

// A log whose backing store is longer than it: an older snapshot of a longer log.
const olderSnapshot = fc
  .tuple(fc.array(fc.integer(), { maxLength: 12 }), fc.array(fc.integer(), { minLength: 1, maxLength: 6 }))
  .map(([base, extra]) => {
    const log = AppendLog.fromIterable(base)
    AppendLog.appendAll(log, extra)
    return { log, model: base }
  })
const index = fc.integer({ min: -20, max: 20 })

describe("AppendLog", () => {
  describe("append", () => {
    it("never changes any snapshot, whatever is appended to which snapshot", () => {
      fc.assert(
        fc.property(fc.array(fc.integer(), { maxLength: 4 }), fc.array(command, { maxLength: 40 }), (initial, commands) => {
          const snapshots: Array<Snapshot> = [{ log: AppendLog.fromIterable(initial), model: initial }]
          for (const c of commands) {
            const s = pick(snapshots, c.from)
            if (c.kind === "append") {
              snapshots.push({ log: AppendLog.append(s.log, c.item), model: [...s.model, c.item] })
            } else if (c.kind === "appendAll") {
              snapshots.push({ log: AppendLog.appendAll(s.log, c.items), model: [...s.model, ...c.items] })
            } else {
              agrees(s) // reading (and caching toArray) in between must not matter either
            }
          }
          snapshots.forEach(agrees)
        }),
      )
    })

    it("keeps every older item by reference", () => {
      fc.assert(
        fc.property(fc.array(fc.object(), { maxLength: 8 }), fc.object(), (items, extra) => {
          const log = AppendLog.fromIterable(items)
          const next = AppendLog.append(log, extra)
          items.forEach((item, i) => expect(next.at(i)).toBe(item))
          expect(next.at(-1)).toBe(extra)
        }),
      )
    })
  })

  describe("slice", () => {
    it("is Array.prototype.slice on the model, for any integer bounds", () => {
      fc.assert(
        fc.property(
          olderSnapshot,
          fc.option(index, { nil: undefined }),
          fc.option(index, { nil: undefined }),
          ({ log, model }, start, end) => {
            const sliced = log.slice(start, end)
            expect(sliced).toEqual(model.slice(start, end))
            expect(Object.isFrozen(sliced)).toBe(true)
          },
        ),
      )
    })
  })

  describe("at", () => {
    it("is Array.prototype.at on the model, for any integer index", () => {
      fc.assert(
        fc.property(olderSnapshot, index, ({ log, model }, i) => {
          expect(log.at(i)).toBe(model.at(i))
        }),
      )
    })
  })

  describe("toArray", () => {
    it("is the model, frozen, and the same reference on every call", () => {
      fc.assert(
        fc.property(olderSnapshot, ({ log, model }) => {
          const arr = log.toArray()
          expect(arr).toEqual(model)
          expect(Object.isFrozen(arr)).toBe(true)
          expect(log.toArray()).toBe(arr)
        }),
      )
    })
  })

  describe("fromIterable", () => {
    it("reads as the array it was made from", () => {
      fc.assert(
        fc.property(fc.array(fc.integer(), { maxLength: 12 }), (items) => {
          agrees({ log: AppendLog.fromIterable(items), model: items })
        }),
      )
    })
  })
})
