// The state a caller hands a run is untrusted input (internal/inputState.ts): checked
// where it enters with core's codec, bounded, and copied deeply frozen. A malformed one
// starts no run (no hook, no model call) and is a typed DecodeFailed naming the bad
// field; an unfrozen one, or a frozen shell over mutable parts, never reaches a hook,
// a store or the result: they get frozen copies, never the caller's objects.
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Hook, HookTriggers, Json, Message, type HookContext } from "@hookline/core"
import { AgentBuilder, AgentLoop, Driver, UseDriver, UseHook, UseLoader } from "@hookline/agent"
import { ScriptedDriver } from "@hookline/testing"
import { unfrozenPath } from "./support.js"

const agentWith = (driver: ScriptedDriver = ScriptedDriver.make([ScriptedDriver.text("hi")], { repeatLast: true })) => {
  const seen: Array<HookContext> = []
  const agent = AgentBuilder.make(
    UseDriver(driver),
    UseHook(Hook.observe((ctx: HookContext) => void seen.push(ctx)), { triggers: HookTriggers.all, name: "test:seen" }),
  )
  return { agent, seen, driver }
}

const valid = () => AgentState.make({ id: "run-1", messages: [Message.user("hi")] })
// A state that is the right shape but built by hand: its parts are the caller's, unfrozen.
const unfrozen = () => {
  const s = valid()
  return { ...s, metadata: { tags: ["a"] }, context: { ...s.context, metadata: { note: { text: "x" } } } } as unknown as AgentState
}

const deep = (levels: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

const malformed: ReadonlyArray<readonly [string, () => unknown, string]> = [
  ["a number", () => 42, "input"],
  ["null", () => null, "input"],
  ["messages that are not a list", () => ({ ...valid(), context: { ...valid().context, messages: "hi" } }), "input.context.messages"],
  ["no execution", () => ({ ...valid(), execution: undefined }), "input.execution"],
  ["a message of an unknown role", () => AgentState.make({ messages: [{ role: "robot", content: 1 } as never] }), "input.context.messages[0]"],
  ["metadata that is not JSON", () => ({ ...valid(), metadata: { when: new Date(0) } }), "input.metadata.when"],
  ["a status that is not one", () => ({ ...valid(), execution: { ...valid().execution, status: "sleeping" } }), "input.execution.status"],
  ["metadata nested 100,000 levels", () => ({ ...valid(), metadata: { deep: deep(100_000) } }), "input.metadata.deep"],
  ["metadata of 200,000 items", () => ({ ...valid(), metadata: { many: Array.from({ length: 200_000 }, () => 0) } }), "input.metadata.many"],
  // `repeat` makes a rope: the check reads the length, never the 100 MB.
  ["a 100 MB message text", () => AgentState.make({ messages: [Message.user("x".repeat(100_000_000))] }), "input.context.messages[0].content"],
  ["a metadata string past Json.maxStringLength", () => ({ ...valid(), metadata: { note: "x".repeat(Json.maxStringLength + 1) } }), "input.metadata.note"],
]

const decodeFailed = async (promise: Promise<unknown>): Promise<AgentError.DecodeFailed> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "DecodeFailed") return error.error
    if (typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "DecodeFailed") return error as AgentError.DecodeFailed
    throw error
  }
  throw new Error("expected a DecodeFailed, but it resolved")
}

describe("the state a caller hands a run", () => {
  describe.each([
    ["agent.run", (agent: ReturnType<typeof agentWith>["agent"], input: unknown) => agent.run(input as AgentState)],
    ["agent.stream", async (agent: ReturnType<typeof agentWith>["agent"], input: unknown) => {
      for await (const _ of agent.stream(input as AgentState)) void _
    }],
    ["agent.resume", (agent: ReturnType<typeof agentWith>["agent"], input: unknown) => agent.resume(input as AgentState)],
    ["agent.continue", (agent: ReturnType<typeof agentWith>["agent"], input: unknown) => agent.continue(input as AgentState, "next")],
  ] as const)("through %s", (_, start) => {
    it.each(malformed)("refuses %s: DecodeFailed naming the field, before any hook or model call", async (_, input, path) => {
      const { agent, seen, driver } = agentWith()
      const error = await decodeFailed(start(agent, input()))
      expect(error.path.startsWith(path)).toBe(true)
      // Bounded: the path stops at the codec's depth bound (512 levels).
      expect(error.message.length).toBeLessThan(4_000)
      expect(seen).toEqual([])
      expect(driver.requests).toEqual([])
    })
  })

  it("gives hooks and the result a frozen copy of an unfrozen state, never the caller's objects", async () => {
    const { agent, seen } = agentWith()
    const input = unfrozen()
    const final = await agent.run(input)
    expect(final.execution.status).toBe("completed")
    expect(final.metadata).toEqual({ tags: ["a"] })
    for (const ctx of seen) expect(unfrozenPath(ctx.state)).toBeUndefined()
    expect(unfrozenPath(final)).toBeUndefined()
    // The caller's objects stay theirs: not frozen under them, not shared.
    expect(Object.isFrozen(input.metadata)).toBe(false)
    expect(final.metadata).not.toBe(input.metadata)
    ;(input.metadata as { tags: Array<string> }).tags.push("b")
    expect(final.metadata).toEqual({ tags: ["a"] })
  })

  it("freezes through a frozen shell over mutable parts", async () => {
    const { agent, seen } = agentWith()
    const shell = Object.freeze({ ...valid(), metadata: { tags: ["a"] } }) as unknown as AgentState
    const final = await agent.run(shell)
    for (const ctx of seen) expect(unfrozenPath(ctx.state)).toBeUndefined()
    expect(unfrozenPath(final)).toBeUndefined()
  })

  it("runs a valid state (the library's own or built by hand) as it was, and a run's result again as it is", async () => {
    const { agent } = agentWith()
    const first = await agent.run(valid())
    expect(first.id).toBe("run-1")
    expect(first.execution.status).toBe("completed")
    const again = await agent.run(first)
    expect(again.context.messages.length).toBe(first.context.messages.length + 1)
    // A finished run given back to resume, with nothing to do, is given back as it is.
    expect(await agent.resume(again)).toBe(again)
  })

  it("dies with the typed error on the Effect path (AgentLoop.run never fails), before any model call", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.text("hi")])
    const exit = await Effect.runPromiseExit(AgentLoop.run(AgentLoop.make({}), { ...valid(), execution: null } as never).pipe(Effect.provideService(Driver.Driver, driver)))
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("input.execution")
    expect(driver.requests).toEqual([])
  })

  it("checks a state a loader gives before it runs, and keeps a valid frozen one as it is", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.text("hi")])
    const bad = AgentBuilder.make(UseDriver(driver), UseLoader(() => Effect.succeed({ ...valid(), metadata: { when: new Date(0) } } as never)))
    const error = await decodeFailed(bad.resume("run-1"))
    expect(error.path).toBe("loaded.metadata.when")
    expect(driver.requests).toEqual([])
    const done = AgentState.withStatus(valid(), "completed", 5)
    const good = AgentBuilder.make(UseDriver(driver), UseLoader(() => Effect.succeed(done)))
    expect(await good.resume("run-1")).toBe(done)
  })

  it("refuses a loaded state holding a string past Json.maxStringLength, naming it and the limit", async () => {
    const driver = ScriptedDriver.make([ScriptedDriver.text("hi")])
    const long = AgentState.make({ id: "run-1", messages: [Message.user("hi"), Message.user("x".repeat(100_000_000))] })
    const agent = AgentBuilder.make(UseDriver(driver), UseLoader(() => Effect.succeed(long)))
    for (const started of [agent.resume("run-1"), agent.continue("run-1", "next")]) {
      const error = await decodeFailed(started)
      expect(error.path).toBe("loaded.context.messages[1].content")
      expect(error.message).toContain("maxStringLength")
      expect(error.message.length).toBeLessThan(1_000)
    }
    expect(driver.requests).toEqual([])
  })

  it("keeps a valid state that is frozen all through as it is, and copies one that is not", async () => {
    const { agent, seen } = agentWith()
    const frozen = valid()
    await agent.run(frozen)
    expect(seen[0]?.state.context.messages).toBe(frozen.context.messages)
    const { agent: other, seen: seenOther } = agentWith()
    const input = unfrozen()
    await other.run(input)
    expect(seenOther[0]?.state.context).not.toBe(input.context)
  })
})

// "Frozen all through" was read as "cannot change": a frozen object may still hold an
// accessor, inherit one, or be a Proxy whose `get` answers anything for a key its
// frozen target lacks (`parentId`, optional, is the one every state may lack). Such a
// state was kept as it was: the check read one value, the run, its store and its result
// read others later (branch hooktrust2).
describe("a frozen state that can still answer differently", () => {
  // `undefined` for the reads the check makes (`checked` of them), then something that is
  // not a parent's id.
  const answers = (checked: number) => {
    let reads = 0
    return () => (reads++ < checked ? undefined : { forged: "x".repeat(1000) })
  }
  const forgeries: ReadonlyArray<readonly [string, () => AgentState]> = [
    ["a Proxy answering for parentId, which its frozen target lacks", () => {
      const read = answers(1)
      const { parentId: _, ...rest } = valid()
      return new Proxy(Object.freeze(rest), { get: (target, key, receiver) => (key === "parentId" ? read() : Reflect.get(target, key, receiver)) }) as AgentState
    }],
    ["an own accessor for parentId", () => {
      const read = answers(2)
      const { parentId: _, ...rest } = valid()
      return Object.freeze(Object.defineProperty({ ...rest }, "parentId", { get: read, enumerable: true })) as AgentState
    }],
    ["an inherited accessor for parentId", () => {
      const read = answers(1)
      const { parentId: _, ...rest } = valid()
      const proto = Object.freeze(Object.defineProperty({}, "parentId", { get: read }))
      return Object.freeze(Object.assign(Object.create(proto), rest)) as AgentState
    }],
  ]

  it.each(forgeries)("is copied, not kept: %s", async (_, forge) => {
    const { agent, seen } = agentWith()
    const final = await agent.run(forge())
    expect(final.execution.status).toBe("completed")
    expect(final.parentId).toBeUndefined()
    for (const ctx of seen) expect(ctx.state.parentId).toBeUndefined()
    expect(Object.getOwnPropertyDescriptor(seen[0]?.state, "parentId")?.get).toBeUndefined()
  })
})

// A state frozen all through was kept as it is with keys the codec does not know (and so
// never checked): a 100 MB string, anything. The codec's copy, which drops them, is taken
// instead (branch plaindata); a state with only known keys is still kept as it is.
describe("a frozen state holding keys the codec does not know", () => {
  const big = () => "x".repeat(100_000_000)
  const deepFreeze = <A>(a: A): A => {
    if (typeof a === "object" && a !== null && !Object.isFrozen(a)) {
      for (const value of Object.values(a)) deepFreeze(value)
      Object.freeze(a)
    }
    return a
  }
  const extras: ReadonlyArray<readonly [string, () => AgentState, (s: AgentState) => unknown]> = [
    ["on the state", () => deepFreeze({ ...valid(), extra: big() }) as AgentState, (s) => s],
    ["on its context", () => {
      const s = valid()
      return deepFreeze({ ...s, context: { ...s.context, extra: big() } }) as AgentState
    }, (s) => s.context],
    ["on its execution", () => {
      const s = valid()
      return deepFreeze({ ...s, execution: { ...s.execution, extra: big() } }) as AgentState
    }, (s) => s.execution],
    ["on a message", () => {
      const message = deepFreeze({ ...Message.user("hi"), extra: big() })
      return AgentState.make({ id: "run-1", messages: [message] })
    }, (s) => s.context.messages.at(0)],
  ]

  it.each(extras)("takes the codec's copy: an unknown key %s", async (_, make, part) => {
    const { agent, seen } = agentWith()
    const input = make()
    const final = await agent.run(input)
    expect(final.execution.status).toBe("completed")
    expect(seen[0]?.state).not.toBe(input)
    for (const state of [seen[0]?.state as AgentState, final]) expect(Object.keys(part(state) as object)).not.toContain("extra")
  })

  it("still keeps a frozen state with only known keys as it is", async () => {
    const { agent, seen } = agentWith()
    const input = valid()
    await agent.run(input)
    expect(seen[0]?.state.context).toBe(input.context)
  })
})
