// The GenAI conventions are "Development" status: every name this package emits is
// pinned in src/internal/names.ts, and checked here against the conventions' package.
import * as Semconv from "@opentelemetry/semantic-conventions/incubating"
import { describe, expect, it } from "vitest"
import { Attr, Metric, Operation } from "../src/internal/names.js"

const known = new Set(Object.values(Semconv as Record<string, unknown>).filter((v): v is string => typeof v === "string"))

describe("names", () => {
  it("emits only attribute and metric names the GenAI conventions (semantic-conventions 1.45.0) define", () => {
    const unknown = [...Object.values(Attr), ...Object.values(Metric)].filter((name) => !known.has(name))
    expect(unknown).toEqual([])
  })

  it("uses the conventions' operation names", () => {
    expect(Object.values(Operation).every((op) => known.has(op))).toBe(true)
  })
})
