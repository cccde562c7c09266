import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Hook, HookContext, HookStack, Json, type HookTrigger } from "@hookline/core"
import * as Arb from "./arbitraries.js"

interface Spec {
  readonly name: string
  readonly priority: number
  readonly triggers: ReadonlyArray<HookTrigger>
}

// Few priorities, so that ties (and so stability) are common.
const spec: fc.Arbitrary<Spec> = fc.record({
  name: fc.stringMatching(/^[a-z]{1,4}$/),
  priority: fc.constantFrom(-200, -1, 0, 0, 1, 100, 200),
  triggers: fc.uniqueArray(Arb.trigger, { minLength: 1, maxLength: 3 }),
})

// Each hook records its name, so a run shows the order hooks actually ran in.
const stackOf = (specs: ReadonlyArray<Spec>) =>
  specs.reduce(
    (stack, s) =>
      HookStack.with(stack, (ctx: HookContext) => HookContext.withMetadata(ctx, { trail: `${String(ctx.metadata["trail"] ?? "")}/${s.name}` }), {
        triggers: s.triggers,
        priority: s.priority,
        name: s.name,
      }),
    HookStack.empty as HookStack,
  )

const shape = (stack: HookStack) => stack.registrations.map((r) => [r.name, r.priority, r.triggers, r.onError])

describe("HookStack", () => {
  describe("order", () => {
    it("is priority descending, then registration order, for any stack", () => {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 12 }), Arb.trigger, (specs, trigger) => {
          const expected = specs
            .map((s, index) => ({ ...s, index }))
            .filter((s) => s.triggers.includes(trigger))
            .sort((a, b) => b.priority - a.priority || a.index - b.index)
            .map((s) => s.name)
          expect(HookStack.order(stackOf(specs), trigger)).toEqual(expected)
        }),
      )
    })

    it("is the order hooks run in", () => {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 8 }), Arb.hookContext(), (specs, ctx) => {
          const stack = stackOf(specs)
          const names = HookStack.order(stack, ctx.trigger)
          const out = HookStack.run(stack, HookContext.withMetadata(ctx, { trail: "" }))
          expect(out.metadata["trail"]).toBe(names.map((n) => `/${n}`).join(""))
        }),
        { numRuns: 50 },
      )
    })
  })

  describe("concat", () => {
    it("is associative", () => {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 4 }), fc.array(spec, { maxLength: 4 }), fc.array(spec, { maxLength: 4 }), (a, b, c) => {
          const [x, y, z] = [stackOf(a), stackOf(b), stackOf(c)]
          const left = HookStack.concat(HookStack.concat(x, y), z)
          const right = HookStack.concat(x, HookStack.concat(y, z))
          expect(shape(left)).toEqual(shape(right))
          expect(HookStack.explain(left)).toEqual(HookStack.explain(right))
          expect(left.registrations.map((r) => r.hook)).toEqual(right.registrations.map((r) => r.hook))
        }),
      )
    })

    it("has empty as its identity on both sides", () => {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 6 }), (a) => {
          const x = stackOf(a)
          expect(HookStack.concat(HookStack.empty, x)).toBe(x)
          expect(HookStack.concat(x, HookStack.empty)).toBe(x)
          const { concat, empty } = HookStack.getMonoid()
          expect(shape(concat(empty, x))).toEqual(shape(x))
        }),
      )
    })
  })

  describe("run", () => {
    it("leaves its input unchanged and returns frozen data", () => {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 6 }), Arb.hookContext(), (specs, ctx) => {
          const before = JSON.stringify(ctx)
          const out = HookStack.run(stackOf(specs), ctx)
          expect(JSON.stringify(ctx)).toBe(before)
          expect(Arb.isDeepFrozen(out)).toBe(true)
        }),
        { numRuns: 50 },
      )
    })

    it("gives every hook deeply frozen data, whatever frozen shell over mutable parts a hook before it built", () => {
      // A hand-built frozen context over parts nobody froze, at a generated place.
      const place = fc.constantFrom("ctx.metadata", "state.metadata", "context.metadata", "execution.metadata", "execution.stopSignals")
      fc.assert(
        fc.property(Arb.hookContext(), place, Arb.json, Arb.stopSignal, (ctx, where, value, signal) => {
          const raw = { nested: structuredClone(value), list: [structuredClone(value)] }
          const shell: Hook = (c) => {
            const st = c.state
            const context = where === "context.metadata" ? Object.freeze({ ...st.context, metadata: raw }) : st.context
            const execution = where === "execution.metadata"
              ? Object.freeze({ ...st.execution, metadata: raw })
              : where === "execution.stopSignals"
              ? Object.freeze({ ...st.execution, stopSignals: [...st.execution.stopSignals, { ...signal }] })
              : st.execution
            const state = Object.freeze({ ...st, context, execution, ...(where === "state.metadata" ? { metadata: raw } : {}) })
            return Object.freeze({ ...c, state, ...(where === "ctx.metadata" ? { metadata: raw } : {}) }) as HookContext
          }
          const seen: Array<HookContext> = []
          const watch: Hook = (c) => {
            seen.push(c)
            return c
          }
          const stack = HookStack.with(
            HookStack.with(HookStack.empty, shell, { triggers: ctx.trigger, priority: 1, name: "shell" }),
            watch,
            { triggers: ctx.trigger, name: "watch" },
          )
          const out = HookStack.run(stack, ctx)
          expect(seen).toHaveLength(1)
          expect(Arb.isDeepFrozen(seen[0])).toBe(true)
          expect(Arb.isDeepFrozen(out)).toBe(true)
        }),
        { numRuns: 100 },
      )
    })

    it("returns the same reference through a stack of observers", () => {
      fc.assert(
        fc.property(fc.array(spec, { maxLength: 6 }), Arb.hookContext(), (specs, ctx) => {
          const stack = specs.reduce(
            (s, sp) => HookStack.with(s, Hook.observe(() => {}), { triggers: sp.triggers, priority: sp.priority, name: sp.name }),
            HookStack.empty as HookStack,
          )
          expect(HookStack.run(stack, ctx)).toBe(ctx)
        }),
        { numRuns: 50 },
      )
    })
  })
})

// Branch plaindata: a hook's changed parts are plain data, as the agent's entry holds a
// caller's state (no Proxy, no accessor, no hidden property, no odd prototype), and its
// strings are within Json.maxStringLength. Each class, at a generated place and depth,
// frozen or not, is a HookFailed naming the hook; the input is never touched.
describe("HookStack.run refuses a return that is not plain data where it changed", () => {
  class Odd {
    readonly a = 1
  }
  const oddValue = fc.constantFrom<readonly [string, () => object]>(
    ["accessor", () => Object.defineProperty({}, "g", { get: () => 1, enumerable: true })],
    // A setter-only accessor reads undefined: a JSON codec may refuse it first.
    ["accessor|JSON value", () => Object.defineProperty({ a: 1 }, "s", { set: () => {}, enumerable: true })],
    ["accessor", () => Object.defineProperty([0], 0, { get: () => 1, enumerable: true })],
    ["hidden", () => Object.defineProperty({ a: 1 }, "h", { value: 2, enumerable: false })],
    ["hidden", () => Object.defineProperty([0], "h", { value: 2, enumerable: false })],
    ["Proxy", () => new Proxy({ a: 1 }, {})],
    ["Proxy", () => new Proxy([1], {})],
    ["prototype|JSON value", () => new Odd()],
    ["prototype|JSON value", () => Object.create({ inherited: 1 }) as object],
    ["prototype", () => Object.setPrototypeOf([1], Object.create(Array.prototype) as object) as object],
  )
  const place = fc.constantFrom("ctx.metadata", "state.metadata", "context.metadata", "execution.metadata", "execution.shell", "state.shell")
  const nest = (depth: number, inner: unknown): unknown => {
    let value = inner
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { v: value }
    return value
  }
  it("fails the hook with HookFailed naming it and what was wrong", () => {
    fc.assert(
      fc.property(Arb.hookContext(), place, oddValue, fc.nat({ max: 4 }), fc.boolean(), (ctx, where, [what, make], depth, frozen) => {
        const odd = make()
        const value = nest(depth, odd)
        const freeze = <A>(a: A): A => (frozen ? Object.freeze(a) : a)
        const hook: Hook = (c) => {
          const st = c.state
          switch (where) {
            case "ctx.metadata":
              return freeze({ ...c, metadata: { x: value } }) as unknown as HookContext
            case "state.metadata":
              return { ...c, state: freeze({ ...st, metadata: { x: value } }) } as unknown as HookContext
            case "context.metadata":
              return { ...c, state: { ...st, context: freeze({ ...st.context, metadata: { x: value } }) } } as unknown as HookContext
            case "execution.metadata":
              return { ...c, state: { ...st, execution: { ...st.execution, metadata: freeze({ x: value }) } } } as unknown as HookContext
            case "execution.shell": {
              // The oddity on the execution itself (its class or Proxy: the shell is the value).
              const shell = what.startsWith("accessor") || what === "hidden"
                ? Object.defineProperty({ ...st.execution }, "odd", what.startsWith("accessor") ? { get: () => 1, enumerable: true } : { value: 1, enumerable: false })
                : what === "Proxy"
                ? new Proxy({ ...st.execution }, {})
                : Object.assign(Object.create({ inherited: 1 }) as object, st.execution)
              return { ...c, state: { ...st, execution: shell } } as unknown as HookContext
            }
            default: {
              const shell = what.startsWith("accessor") || what === "hidden"
                ? Object.defineProperty({ ...st }, "odd", what.startsWith("accessor") ? { get: () => 1, enumerable: true } : { value: 1, enumerable: false })
                : what === "Proxy"
                ? new Proxy({ ...st }, {})
                : Object.assign(Object.create({ inherited: 1 }) as object, st)
              return { ...c, state: shell } as unknown as HookContext
            }
          }
        }
        const before = JSON.stringify(ctx)
        let caught: unknown
        try {
          HookStack.run(HookStack.with(HookStack.empty, hook, { triggers: ctx.trigger, name: "odd:hook" }), ctx)
        } catch (error) {
          caught = error
        }
        const failure = (caught as { error?: { _tag?: string; hook?: string; message?: string } } | undefined)?.error
        expect(failure?._tag).toBe("HookFailed")
        expect(failure?.hook).toBe("odd:hook")
        // An odd prototype on a shell, or a value a JSON codec reads first, may be refused by the codec's check.
        const codecFirst = what.includes("|") || (where.endsWith("shell") && what === "prototype")
        expect(failure?.message).toMatch(new RegExp(codecFirst ? `${what}|expected` : what))
        expect(JSON.stringify(ctx)).toBe(before)
      }),
      { numRuns: 300 },
    )
  })

  it("fails a systemPrompt or a parentId past Json.maxStringLength", () => {
    const long = "x".repeat(Json.maxStringLength + 1)
    fc.assert(
      fc.property(Arb.hookContext(), fc.boolean(), (ctx, prompt) => {
        const hook: Hook = (c) =>
          prompt
            ? { ...c, state: { ...c.state, context: { ...c.state.context, systemPrompt: long } } }
            : { ...c, state: { ...c.state, parentId: long } }
        expect(() => HookStack.run(HookStack.with(HookStack.empty, hook, { triggers: ctx.trigger, name: "long" }), ctx)).toThrow(
          prompt ? /state\.context\.systemPrompt: a string of/ : /state\.parentId: a string of/,
        )
      }),
      { numRuns: 50 },
    )
  })
})
