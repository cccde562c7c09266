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
// A snapshot reached through branches of branches: each step appends to the newest
// snapshot or branches from an older one (`back` steps back), deep enough that branches
// nest past the depth where a branch copies.
const branched = fc
  .tuple(
    fc.array(fc.integer(), { maxLength: 6 }),
    fc.array(fc.record({ item: fc.integer(), back: fc.nat({ max: 3 }) }), { maxLength: 40 }),
    fc.nat(),
  )
  .map(([initial, steps, chosen]) => {
    const snapshots: Array<Snapshot> = [{ log: AppendLog.fromIterable(initial), model: initial }]
    for (const { item, back } of steps) {
      const s = snapshots[Math.max(0, snapshots.length - 1 - back)]!
      snapshots.push({ log: AppendLog.append(s.log, item), model: [...s.model, item] })
    }
    return snapshots[chosen % snapshots.length]!
  })
const anySnapshot = fc.oneof(olderSnapshot, branched)
const index = fc.integer({ min: -50, max: 50 })

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

    it("reads every snapshot right through branches of branches, nested past the depth where a branch copies", () => {
      fc.assert(
        fc.property(fc.array(fc.integer(), { maxLength: 4 }), fc.integer({ min: 1, max: 30 }), (initial, depth) => {
          // Each round: extend the newest snapshot (so the older one is no longer its
          // lineage's newest), then branch from the older one.
          let older: Snapshot = { log: AppendLog.fromIterable(initial), model: initial }
          const all: Array<Snapshot> = [older]
          for (let d = 0; d < depth; d++) {
            const ahead = { log: AppendLog.append(older.log, -d), model: [...older.model, -d] }
            const branch = { log: AppendLog.append(older.log, d), model: [...older.model, d] }
            all.push(ahead, branch)
            older = branch
          }
          all.forEach(agrees)
          all.forEach(({ log, model }) => model.forEach((item, i) => expect(log.at(i)).toBe(item)))
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
          anySnapshot,
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
        fc.property(anySnapshot, index, ({ log, model }, i) => {
          expect(log.at(i)).toBe(model.at(i))
        }),
      )
    })
  })

  describe("toArray", () => {
    it("is the model, frozen, and the same reference on every call", () => {
      fc.assert(
        fc.property(anySnapshot, ({ log, model }) => {
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
