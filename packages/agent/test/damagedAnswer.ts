// Driver answers to throw at the boundary's check: a valid response, encoded, with one
// value anywhere in it replaced by anything.
import fc from "fast-check"
import { Codecs } from "@hookline/core"
import { Arbitraries } from "@hookline/testing"

export const encodedAnswer = Arbitraries.inferenceResponse().map((r) =>
  JSON.parse(JSON.stringify(Codecs.InferenceResponse.encode(r))) as Record<string, unknown>
)

/** A damaged answer; `atRoot` says what stands for the whole answer replaced by `junk`. */
export const damagedAnswer = <R>(atRoot: (junk: unknown) => R): fc.Arbitrary<Record<string, unknown> | R> =>
  fc.tuple(encodedAnswer, fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withSet: true }), fc.nat()).map(
    ([given, junk, n]) => {
      // A fresh copy: what is damaged (or frozen by a check) must not reach a value fast-check reuses.
      const u = JSON.parse(JSON.stringify(given)) as Record<string, unknown>
      const paths: Array<Array<string | number>> = []
      const visit = (v: unknown, path: Array<string | number>) => {
        paths.push(path)
        if (typeof v === "object" && v !== null) for (const [k, c] of Object.entries(v)) visit(c, [...path, Array.isArray(v) ? Number(k) : k])
      }
      visit(u, [])
      const path = paths[n % paths.length] as Array<string | number>
      if (path.length === 0) return atRoot(junk)
      let parent = u as Record<string | number, unknown>
      for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
      parent[path.at(-1) as string | number] = junk
      return u
    },
  )
