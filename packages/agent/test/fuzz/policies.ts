// A generator class for policies over validated arguments (issue 26): tools whose
// schema coerces, transforms or fills in defaults, models that send strings for
// numbers (and worse), and hooks that edit a call before the policy reads it. The
// rule it serves: no built-in policy decides on arguments that the tool would decode
// differently (docs/decisions.md, "Policies over validated arguments").
import { type JsonValue, ToolCall } from "@hookline/core"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import * as t from "io-ts"
import * as z from "zod"
import { Tool } from "@hookline/agent"

/** How the tool's schema reads `amount`. */
export type SchemaKind = "zodCoerce" | "zodDefault" | "zodTransform" | "ioTsNumberLike" | "plain"

export const schemaKinds: ReadonlyArray<SchemaKind> = ["zodCoerce", "zodDefault", "zodTransform", "ioTsNumberLike", "plain"]

export interface PolicyCase {
  readonly schema: SchemaKind
  /** The arguments the model sent. */
  readonly sent: JsonValue
  /** Arguments a BeforeToolUse hook puts in place of the sent ones, before the policy. */
  readonly edit: JsonValue | undefined
  /** The policy asks about amounts above this. */
  readonly limit: number
  readonly toolConcurrency: "sequential" | "concurrent"
}

// A number or a numeric string, as io-ts (not zod) reads it.
const NumberLike = new t.Type<number, number, unknown>(
  "NumberLike",
  (u): u is number => typeof u === "number",
  (u, c) => {
    if (typeof u === "number") return t.success(u)
    const n = typeof u === "string" && u.trim() !== "" ? Number(u) : Number.NaN
    return Number.isFinite(n) ? t.success(n) : t.failure(u, c)
  },
  (n) => n,
)

const parametersOf = (kind: SchemaKind) => {
  switch (kind) {
    case "zodCoerce":
      return z.object({ amount: z.coerce.number() })
    case "zodDefault":
      return z.object({ amount: z.number().default(250) })
    case "zodTransform":
      return z.object({ amount: z.union([z.number(), z.string()]).transform((v) => (typeof v === "string" ? Number(v.trim()) : v)).pipe(z.number()) })
    case "ioTsNumberLike":
      return t.type({ amount: NumberLike })
    case "plain":
      return t.type({ amount: t.number })
  }
}

/** The tool of a case; `received` gets each amount it runs with. */
export const refundTool = (kind: SchemaKind, received: Array<unknown>): Tool.Tool<{ readonly amount: number }> =>
  Tool.make<{ readonly amount: number }>({
    name: "refund",
    description: "Refunds an amount",
    parameters: parametersOf(kind) as Tool.Parameters<{ readonly amount: number }>,
    jsonSchema: { type: "object", properties: { amount: { type: "number" } } },
    execute: (args) => (received.push(args), "refunded"),
  })

/** What the tool itself makes of arguments, by its own validator: the reference. */
export const referenceDecode = (tool: Tool.Tool<{ readonly amount: number }>, args: JsonValue): { readonly amount: number } | undefined => {
  const exit = Effect.runSyncExit(tool.validate(args))
  return Exit.isSuccess(exit) ? exit.value : undefined
}

const amount: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.integer({ min: -5, max: 400 }),
  fc.integer({ min: -5, max: 400 }).map(String),
  fc.integer({ min: -5, max: 400 }).map((n) => ` ${n} `),
  fc.double({ min: -10, max: 400, noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom<JsonValue>("abc", "", "1e3", "0x10", "NaN", "Infinity", null, true, false, [], {}),
)

const argumentsArb: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 6, arbitrary: amount.map((a) => ({ amount: a })) },
  { weight: 1, arbitrary: fc.constantFrom<JsonValue>({}, { amount: "300", extra: true }, "not json", [1], null) },
)

export const policyCase: fc.Arbitrary<PolicyCase> = fc.record({
  schema: fc.constantFrom(...schemaKinds),
  sent: argumentsArb,
  edit: fc.option(argumentsArb, { nil: undefined }),
  limit: fc.integer({ min: 0, max: 300 }),
  toolConcurrency: fc.constantFrom("sequential" as const, "concurrent" as const),
})

/**
 * The arguments of a case as the run holds them (the editing hook's, else the model's):
 * a call's arguments are JSON, where -0 is 0, and `ToolCall.make` keeps them so; the
 * tool and every hook read that, so the reference decodes it too.
 */
export const heldArguments = (c: PolicyCase): JsonValue =>
  ToolCall.make({ id: "r1", name: "refund", arguments: c.edit === undefined ? c.sent : c.edit }).arguments

/** Cases a run found once, checked every time: an edit to -0 (CI, seed -1851248920). */
export const foundCases: Array<[PolicyCase]> = [[{ schema: "zodCoerce", sent: { amount: 0 }, edit: { amount: -0 }, limit: 0, toolConcurrency: "sequential" }]]

