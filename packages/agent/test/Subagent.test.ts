import { AgentState, Codecs, HookContext, StopReason, type HookTrigger, Usage } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { AgentBuilder, AgentEvent, Decision, Tool, UseDriver, UseGuards, UseHook, UseLoopOptions, UseTools } from "../src/index.js"

// Records the states a trigger sees (a child's AfterExecution: its final state, once per run).
const recorder = (trigger: HookTrigger) => {
  const states: Array<AgentState> = []
  const use = UseHook((ctx) => (states.push(ctx.state), ctx), { triggers: trigger, name: `test:${trigger}` })
  return { states, use }
}

const sumOfSteps = (state: AgentState): Usage.Usage => state.execution.steps.toArray().reduce((u, s) => Usage.add(u, s.usage), Usage.empty)

const delegate = (id = "call-1", prompt = "look it up") => ScriptedDriver.toolCalls([{ id, name: "research", arguments: { prompt } }])

describe("Tool.fromAgent", () => {
  it("runs the child on the prompt, with the parent's run id as parentId and its own id, derived from the parent's run and call; its answer is the result", async () => {
    const seen = recorder("AfterExecution")
    const childDriver = ScriptedDriver.make([ScriptedDriver.text("Paris")])
    const child = AgentBuilder.make(UseDriver(childDriver), seen.use)
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate("call-1", "capital of France?"), ScriptedDriver.text("It is Paris.")])),
      UseTools([Tool.fromAgent(child, { name: "research", description: "Looks a question up" })]),
    )
    const final = await parent.run(AgentState.make({ id: "parent-1", messages: [] }))
    expect(final.execution.status).toBe("completed")
    expect(seen.states).toHaveLength(1)
    const childFinal = seen.states[0] as AgentState
    expect(childFinal.parentId).toBe("parent-1")
    // Derived from the parent's run id and call id: the same each time the call runs.
    expect(childFinal.id).toBe("parent-1/call-1")
    expect(childFinal.context.messages.toArray()[0]).toMatchObject({ role: "user", content: "capital of France?" })
    const result = final.context.messages.toArray().find((m) => m.role === "tool")
    expect(result).toMatchObject({ toolCallId: "call-1", toolName: "research", content: "Paris", isError: false })
  })

  it("makes the child's message from the input with `prompt`, and the result from its final state with `output`", async () => {
    const childDriver = ScriptedDriver.make([ScriptedDriver.text("42")])
    const tool = Tool.fromAgent(AgentBuilder.make(UseDriver(childDriver)), {
      name: "calc",
      input: t.type({ a: t.number, b: t.number }),
      prompt: ({ a, b }) => `add ${a} and ${b}`,
      output: (state) => ({ answer: Number(state.context.messages.last()?.content), steps: state.execution.steps.length }),
    })
    expect(tool.jsonSchema).toMatchObject({ type: "object", properties: { a: { type: "number" } } })
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c", name: "calc", arguments: { a: 40, b: 2 } }]), ScriptedDriver.text("ok")])),
      UseTools([tool]),
    )
    const final = await parent.run("add")
    expect(childDriver.requests[0]?.messages.toArray()[0]).toMatchObject({ content: "add 40 and 2" })
    expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toBe(JSON.stringify({ answer: 42, steps: 1 }))
  })

  it("is data-last too, and refuses bad options with InvalidConfiguration naming the field", () => {
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([])))
    expect(Tool.fromAgent({ name: "sub" })(child).name).toBe("sub")
    expect(() => Tool.fromAgent(child, { name: "bad name" })).toThrow("name")
    expect(() => Tool.fromAgent(child, { name: "sub", prompt: 3 as never })).toThrow("prompt")
  })

  it("adds the child's usage to the parent's when the call is committed: the token guard stops the parent", async () => {
    const childDriver = ScriptedDriver.make([ScriptedDriver.text("long research")], { usage: { inputTokens: 400, outputTokens: 100 } })
    const child = AgentBuilder.make(UseDriver(childDriver))
    const afterTool = recorder("AfterToolUse")
    const parentDriver = ScriptedDriver.make([delegate(), ScriptedDriver.text("never asked")], { usage: { inputTokens: 10, outputTokens: 5 } })
    const parent = AgentBuilder.make(
      UseDriver(parentDriver),
      UseTools([Tool.fromAgent(child, { name: "research" })]),
      UseGuards({ maxTokens: 300 }),
      afterTool.use,
    )
    const final = await parent.run("research this")
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe(StopReason.TokenLimitReached)
    expect(parentDriver.requests).toHaveLength(1)
    expect(final.execution.usage).toEqual(Usage.make(410, 105))
    // The step's record holds the parent's own model call; the run's usage adds the child's.
    expect(sumOfSteps(final)).toEqual(Usage.make(10, 5))
    // AfterToolUse runs before the commit; the next hook sees the usage (the guard did).
    expect(afterTool.states[0]?.execution.usage).toEqual(Usage.make(0, 0))
  })

  it("an abort of the parent reaches the child at once: both end, the child's AfterExecution runs once", async () => {
    const controller = new AbortController()
    const childEnd = recorder("AfterExecution")
    // The child's model hangs; the abort comes while it waits.
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.hang()])),
      childEnd.use,
      UseHook((ctx) => (setTimeout(() => controller.abort(), 0), ctx), { triggers: "BeforeInference", name: "test:abort_soon" }),
    )
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate(), ScriptedDriver.text("never")])),
      UseTools([Tool.fromAgent(child, { name: "research" })]),
    )
    const final = await parent.run("go", { signal: controller.signal })
    expect(final.execution.status).toBe("stopped")
    expect(final.execution.stopReason).toBe(StopReason.UserRequested)
    expect(childEnd.states).toHaveLength(1)
    expect(childEnd.states[0]?.execution.status).toBe("stopped")
    expect(childEnd.states[0]?.execution.stopReason).toBe(StopReason.UserRequested)
    // The call never answered: it is marked cancelled, not given a result.
    expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toMatch(/^Cancelled: /)
  })

  it("the parent's time limit reaches the child too", async () => {
    const childEnd = recorder("AfterExecution")
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.hang()])), childEnd.use)
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate(), ScriptedDriver.text("never")])),
      UseTools([Tool.fromAgent(child, { name: "research" })]),
      UseGuards({ maxExecutionTime: 30 }),
    )
    const final = await parent.run("go")
    expect(final.execution.stopReason).toBe(StopReason.TimeLimitReached)
    expect(childEnd.states).toHaveLength(1)
    expect(childEnd.states[0]?.execution.status).toBe("stopped")
  })

  it("a timeout on the tool ends the child (its AfterExecution once) and fails the call; the parent goes on", async () => {
    const childEnd = recorder("AfterExecution")
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.hang()])), childEnd.use)
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate(), ScriptedDriver.text("gave up")])),
      UseTools([Tool.fromAgent(child, { name: "research", timeout: 20 })]),
    )
    const final = await parent.run("go")
    expect(final.execution.status).toBe("completed")
    expect(final.execution.errors).toMatchObject([{ _tag: "ToolTimedOut", toolName: "research" }])
    expect(childEnd.states).toHaveLength(1)
    expect(childEnd.states[0]?.execution.status).toBe("stopped")
  })

  it("gives the child the parent's run context", async () => {
    const seen: Array<unknown> = []
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.text("ok")])),
      UseHook((ctx) => (seen.push(ctx.runContext), ctx), { triggers: "BeforeExecution", name: "test:context" }),
    )
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate(), ScriptedDriver.text("done")])),
      UseTools([Tool.fromAgent(child, { name: "research" })]),
    )
    await parent.run("go", { context: { tenant: "acme" } })
    expect(seen).toEqual([{ tenant: "acme" }])
  })

  it("streams the child's events, its HookExecuted events too when asked (hookEvents), nested under the parent's call", async () => {
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.text("found it")])),
      UseHook((ctx) => ctx, { triggers: "BeforeStep", name: "child:note" }),
    )
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate("call-9"), ScriptedDriver.text("done")])),
      UseTools([Tool.fromAgent(child, { name: "research" })]),
      UseHook((ctx) => ctx, { triggers: "BeforeStep", name: "parent:note" }),
    )
    const events: Array<AgentEvent> = []
    for await (const event of parent.stream(AgentState.make({ id: "p-9", messages: [] }), { hookEvents: true })) events.push(event)
    const nested = events.filter(AgentEvent.is("Subagent"))
    expect(nested.length).toBeGreaterThan(0)
    for (const e of nested) expect(e.parent).toEqual({ runId: "p-9", toolCallId: "call-9" })
    const inner = nested.map((e) => e.event)
    expect(inner[0]?._tag).toBe("RunStarted")
    expect(inner.at(-1)?._tag).toBe("RunEnded")
    const started = inner[0] as Extract<AgentEvent, { _tag: "RunStarted" }>
    expect(started.state.parentId).toBe("p-9")
    expect(inner.filter(AgentEvent.is("HookExecuted")).map((e) => e.event.hook)).toContain("child:note")
    expect(inner.filter(AgentEvent.is("TextDelta")).map((e) => e.text).join("")).toBe("found it")
    // The parent's own events name only its own hooks; the child's sit between the
    // parent's call and its result.
    expect(events.filter(AgentEvent.is("HookExecuted")).map((e) => e.event.hook)).not.toContain("child:note")
    const tags = events.map((e) => e._tag)
    const requested = tags.indexOf("ToolCallRequested")
    const result = tags.indexOf("ToolResult")
    expect(requested).toBeLessThan(tags.indexOf("Subagent"))
    expect(tags.lastIndexOf("Subagent")).toBeLessThan(result)
  })

  it("a child that fails is a tool error naming its error; the parent goes on", async () => {
    const child = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.failure("the provider is down")])))
    const parentDriver = ScriptedDriver.make([delegate(), ScriptedDriver.text("I could not research it")])
    const parent = AgentBuilder.make(UseDriver(parentDriver), UseTools([Tool.fromAgent(child, { name: "research" })]))
    const final = await parent.run("go")
    expect(final.execution.status).toBe("completed")
    const result = final.context.messages.toArray().find((m) => m.role === "tool")
    expect(result?.isError).toBe(true)
    expect(result?.content).toContain("subagent \"research\"")
    expect(result?.content).toContain("failed: InferenceFailed: the provider is down")
    // The model read the error.
    expect(parentDriver.requests[1]?.messages.toArray().some((m) => m.role === "tool" && m.content.includes("InferenceFailed"))).toBe(true)
  })

  it("a child stopped by its own guard is a tool error naming the stop", async () => {
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "nothing", arguments: {} }]), ScriptedDriver.text("x")])),
      UseGuards({ maxSteps: 1 }),
    )
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([delegate(), ScriptedDriver.text("ok")])),
      UseTools([Tool.fromAgent(child, { name: "research" })]),
    )
    const final = await parent.run("go")
    expect(final.execution.status).toBe("completed")
    expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toContain("stopped: StepsLimitReached: Step limit reached: 1/1")
  })

  describe("approval inside the child", () => {
    const setup = () => {
      const refunds: Array<number> = []
      const refund = Tool.make({
        name: "refund",
        parameters: t.type({ amount: t.number }),
        execute: ({ amount }) => (refunds.push(amount), { refunded: amount }),
      })
      const approval = UseHook(
        (ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "a person approves refunds", { amount: 1 }) : ctx,
        { triggers: "BeforeToolUse", name: "test:approval" },
      )
      const childEnd = recorder("AfterExecution")
      const childDriver = ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "child-call-1", name: "refund", arguments: { amount: 500 } }]),
        ScriptedDriver.text("refunded 500"),
      ], { usage: { inputTokens: 7, outputTokens: 3 } })
      const child = AgentBuilder.make(UseDriver(childDriver), UseTools([refund]), approval, childEnd.use)
      const parentDriver = ScriptedDriver.make([delegate("parent-call-1", "refund order A7"), ScriptedDriver.text("the refund is done")])
      const parent = AgentBuilder.make(UseDriver(parentDriver), UseTools([Tool.fromAgent(child, { name: "research" })]))
      return { parent, parentDriver, childDriver, refunds, childEnd }
    }

    it("suspends the parent; resuming the parent (state encoded and decoded) with a decision for the child's call finishes both", async () => {
      const { parent, parentDriver, refunds, childEnd } = setup()
      const suspended = await parent.run(AgentState.make({ id: "p-1", messages: [] }))
      expect(suspended.execution.status).toBe("suspended")
      expect(refunds).toEqual([])
      const pending = suspended.execution.pendingCalls ?? []
      expect(pending).toHaveLength(1)
      expect(pending[0]?.toolCall).toMatchObject({ id: "parent-call-1", name: "research" })
      expect(pending[0]?.payload).toMatchObject({
        _tag: "Subagent",
        agent: "research",
        // The child's call as its parent shows it: named by the path parent call / child call.
        pendingCalls: [{ toolCall: { id: "parent-call-1/child-call-1", name: "refund" }, reason: "a person approves refunds", payload: { amount: 1 } }],
      })
      expect(childEnd.states.at(-1)?.execution.status).toBe("suspended")
      // What the child spent so far counts: the model call it suspended in.
      expect(suspended.execution.usage).toEqual(Usage.make(7, 3))

      const stored = Codecs.fromJson(Codecs.AgentState, Codecs.toJson(Codecs.AgentState, suspended))
      if (stored._tag !== "Success") throw new Error("the suspended state does not decode")
      const final = await parent.resume(stored.success, [Decision.approve("parent-call-1/child-call-1")])
      expect(final.execution.status).toBe("completed")
      expect(refunds).toEqual([500])
      const childFinal = childEnd.states.at(-1) as AgentState
      expect(childFinal.execution.status).toBe("completed")
      expect(childFinal.parentId).toBe("p-1")
      expect(final.context.messages.toArray().filter((m) => m.role === "tool")).toMatchObject([
        { toolCallId: "parent-call-1", content: "refunded 500", isError: false },
      ])
      expect(final.context.messages.last()?.content).toBe("the refund is done")
      expect(parentDriver.requests).toHaveLength(2)
      // Both of the child's model calls counted once, across the suspension, in the
      // run's usage, not in the parent's step records (its own model spent nothing).
      expect(final.execution.usage).toEqual(Usage.make(14, 6))
      expect(sumOfSteps(final)).toEqual(Usage.empty)
    })

    it("a rejection inside the child is read by the child's model; the parent goes on", async () => {
      const { parent, childDriver, refunds } = setup()
      const suspended = await parent.run("refund")
      const final = await parent.resume(suspended, [Decision.reject("parent-call-1/child-call-1", "not without a receipt")])
      expect(final.execution.status).toBe("completed")
      expect(refunds).toEqual([])
      const read = childDriver.requests[1]?.messages.toArray().find((m) => m.role === "tool")
      expect(read).toMatchObject({ toolCallId: "child-call-1", isError: true })
      expect(read?.content).toContain("not without a receipt")
    })

    it("with concurrent tools, a sibling's result is committed and only the child's call waits", async () => {
      const refund = Tool.make({ name: "refund", parameters: t.type({}), execute: () => "refunded" })
      const approval = UseHook(
        (ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve") : ctx,
        { triggers: "BeforeToolUse", name: "test:approval" },
      )
      const asker = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "r1", name: "refund", arguments: {} }]), ScriptedDriver.text("refund done")])),
        UseTools([refund]),
        approval,
      )
      const teller = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("order A7 is late")])))
      const parent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([
            { id: "p1", name: "refunds", arguments: { prompt: "refund A7" } },
            { id: "p2", name: "orders", arguments: { prompt: "status of A7" } },
          ]),
          ScriptedDriver.text("all done"),
        ])),
        UseTools([Tool.fromAgent(asker, { name: "refunds" }), Tool.fromAgent(teller, { name: "orders" })]),
        UseLoopOptions({ toolConcurrency: "concurrent" }),
      )
      const suspended = await parent.run("sort out A7")
      expect(suspended.execution.status).toBe("suspended")
      expect(suspended.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["p1"])
      expect(suspended.context.messages.toArray().filter((m) => m.role === "tool")).toMatchObject([{ toolCallId: "p2", content: "order A7 is late" }])
      const final = await parent.resume(suspended, [Decision.approve("p1/r1")])
      expect(final.execution.status).toBe("completed")
      expect(final.context.messages.toArray().filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["order A7 is late", "refund done"])
    })

    // A parent (call p1) whose child (call c1) runs a grandchild that waits on g1.
    const twoLevels = () => {
      const refunds: Array<string> = []
      const refund = Tool.make({ name: "refund", parameters: t.type({}), execute: (_, c) => (refunds.push(c.toolCall.id), "refunded") })
      const grandchild = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "g1", name: "refund", arguments: {} }]), ScriptedDriver.text("grandchild done")])),
        UseTools([refund]),
        UseHook((ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
      )
      const child = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "c1", name: "deeper", arguments: { prompt: "go" } }]), ScriptedDriver.text("child done")])),
        UseTools([Tool.fromAgent(grandchild, { name: "deeper" })]),
      )
      const parent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([delegate("p1"), ScriptedDriver.text("top done")])),
        UseTools([Tool.fromAgent(child, { name: "research" })]),
      )
      return { parent, refunds }
    }

    it("an approval two levels down suspends the top run, and its decision reaches the grandchild", async () => {
      const { parent, refunds } = twoLevels()
      const suspended = await parent.run("go")
      expect(suspended.execution.pendingCalls?.[0]?.payload).toMatchObject({
        pendingCalls: [{ toolCall: { id: "p1/c1" }, payload: { _tag: "Subagent", pendingCalls: [{ toolCall: { id: "p1/c1/g1" } }] } }],
      })
      const final = await parent.resume(suspended, [Decision.approve("p1/c1/g1")])
      expect(final.execution.status).toBe("completed")
      expect(refunds).toEqual(["g1"])
      expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toBe("child done")
      expect(final.context.messages.last()?.content).toBe("top done")
    })

    it("a parent stored before calls were named by path (its payloads list the children's plain ids) resumes by the paths", async () => {
      const { parent, refunds } = twoLevels()
      const suspended = await parent.run("go")
      // Every payload's list as the earlier format wrote it: the plain ids.
      const plain = (u: unknown): unknown =>
        Array.isArray(u) ? u.map(plain)
        : typeof u !== "object" || u === null ? u
        : Object.fromEntries(Object.entries(u).map(([k, v]) =>
          [k, k === "toolCall" && typeof (v as { id?: unknown }).id === "string" ? { ...v, id: (v as { id: string }).id.split("/").at(-1) } : plain(v)]
        ))
      const old = Codecs.decode(Codecs.AgentState, plain(JSON.parse(Codecs.toJson(Codecs.AgentState, suspended))))
      if (old._tag !== "Success") throw new Error("the rewritten state does not decode")
      expect(old.success.execution.pendingCalls?.[0]?.payload).toMatchObject({
        pendingCalls: [{ toolCall: { id: "c1" }, payload: { pendingCalls: [{ toolCall: { id: "g1" } }] } }],
      })
      const final = await parent.resume(old.success, [Decision.approve("p1/c1/g1")])
      expect(final.execution.status).toBe("completed")
      expect(refunds).toEqual(["g1"])
      expect(final.context.messages.last()?.content).toBe("top done")
    })

    it("decisions for some of the child's calls resume it and suspend the parent again on the rest", async () => {
      const paid: Array<string> = []
      const pay = Tool.make({ name: "pay", parameters: t.type({}), execute: (_, c) => (paid.push(c.toolCall.id), "paid") })
      const child = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([
          ScriptedDriver.toolCalls([{ id: "k1", name: "pay", arguments: {} }, { id: "k2", name: "pay", arguments: {} }]),
          ScriptedDriver.text("both paid"),
        ])),
        UseTools([pay]),
        UseHook((ctx) => ctx.toolCall?.name === "pay" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
      )
      const parent = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([delegate("p1"), ScriptedDriver.text("done")])),
        UseTools([Tool.fromAgent(child, { name: "research" })]),
      )
      const first = await parent.run("pay")
      const half = await parent.resume(first, [Decision.approve("p1/k1")])
      expect(half.execution.status).toBe("suspended")
      expect(paid).toEqual(["k1"])
      expect(half.execution.pendingCalls?.[0]?.payload).toMatchObject({ pendingCalls: [{ toolCall: { id: "p1/k2" } }] })
      // The rule for repeats holds for a subagent's call too (issue 26): the same decision
      // again is a no-op, a different one is refused.
      expect(await parent.resume(half, [Decision.approve("p1/k1")])).toBe(half)
      await expect(parent.resume(half, [Decision.reject("p1/k1", "no")])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "decided" })
      const final = await parent.resume(half, [Decision.approve("p1/k2")])
      expect(final.execution.status).toBe("completed")
      expect(paid).toEqual(["k1", "k2"])
      expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toBe("both paid")
    })

    it("a forged decision for the child's call is DecisionInvalid (malformed) at the parent: neither runs", async () => {
      const { parent, parentDriver, childDriver, refunds, childEnd } = setup()
      const suspended = await parent.run("refund")
      const requests = [parentDriver.requests.length, childDriver.requests.length]
      const before = Codecs.stringifyState(suspended)
      for (const forged of [{ _tag: "Deny", toolCallId: "parent-call-1/child-call-1" }, { _tag: "approve", toolCallId: "parent-call-1/child-call-1" }, { _tag: "Reject", toolCallId: "parent-call-1/child-call-1" }]) {
        await expect(parent.resume(suspended, [forged as never])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "malformed", toolCallId: "parent-call-1/child-call-1" })
      }
      expect(refunds).toEqual([])
      expect(childEnd.states).toHaveLength(1)
      expect([parentDriver.requests.length, childDriver.requests.length]).toEqual(requests)
      expect(Codecs.stringifyState(suspended)).toBe(before)
      // The real decision still goes through.
      expect((await parent.resume(suspended, [Decision.approve("parent-call-1/child-call-1")])).execution.status).toBe("completed")
      expect(refunds).toEqual([500])
    })

    it("a decision for a call nobody waits on is DecisionInvalid", async () => {
      const { parent } = setup()
      const suspended = await parent.run("refund")
      await expect(parent.resume(suspended, [Decision.approve("no-such-call")])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "unknown" })
      // The child's bare id is no name in the parent: its path is.
      await expect(parent.resume(suspended, [Decision.approve("child-call-1")])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "unknown" })
    })

    it("a stored child state that does not decode is a tool error, not a crash", async () => {
      const { parent } = setup()
      const suspended = await parent.run("refund")
      const pending = suspended.execution.pendingCalls?.[0]
      if (pending === undefined) throw new Error("not suspended")
      const broken = AgentState.withPendingCalls(suspended, [{
        ...pending,
        payload: { ...(pending.payload as object), state: { id: 3 } },
      }])
      const final = await parent.resume(broken, [Decision.approve("parent-call-1/child-call-1")])
      expect(final.execution.status).toBe("completed")
      expect(final.context.messages.toArray().find((m) => m.role === "tool")?.content).toContain("its stored state is invalid")
    })
  })
})

describe("Tool.fromAgent across the call-id boundary", () => {
  // Per-conversation numbering (ScriptedDriver's default ids): parent and child both say `call_1`.
  const numbered = () => {
    const refunds: Array<{ readonly amount: number; readonly key: string }> = []
    const refund = Tool.make({
      name: "refund",
      parameters: t.type({ amount: t.number }),
      execute: ({ amount }, c) => (refunds.push({ amount, key: c.idempotencyKey }), { refunded: amount }),
    })
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "refund", arguments: { amount: 500 } }]), ScriptedDriver.text("refunded 500")])),
      UseTools([refund]),
      UseHook((ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
    )
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "refunds", arguments: { prompt: "refund A7" } }]), ScriptedDriver.text("done")])),
      UseTools([Tool.fromAgent(child, { name: "refunds" })]),
    )
    return { parent, refunds }
  }
  const exposed = (state: AgentState): ReadonlyArray<string> =>
    ((state.execution.pendingCalls?.[0]?.payload as { pendingCalls: ReadonlyArray<{ toolCall: { id: string } }> }).pendingCalls).map((p) => p.toolCall.id)

  it("names the child's waiting call by the path of the parent's call id and its own: an approval reaches the child's call", async () => {
    const { parent, refunds } = numbered()
    const suspended = await parent.run(AgentState.make({ id: "p-1", messages: [] }))
    expect(suspended.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["call_1"])
    expect(exposed(suspended)).toEqual(["call_1/call_1"])
    const final = await parent.resume(suspended, [Decision.approve("call_1/call_1")])
    expect(final.execution.status).toBe("completed")
    expect(refunds.map((r) => r.amount)).toEqual([500])
    expect(final.context.messages.toArray().filter((m) => m.role === "tool")).toMatchObject([{ toolCallId: "call_1", content: "refunded 500" }])
  })

  it("a decision naming the parent's call (`call_1`) answers the parent's call and never runs the child's", async () => {
    const { parent, refunds } = numbered()
    const suspended = await parent.run("refund")
    const final = await parent.resume(suspended, [Decision.reject("call_1", "no refunds today")])
    expect(final.execution.status).toBe("completed")
    expect(refunds).toEqual([])
    expect(final.context.messages.toArray().find((m) => m.role === "tool")).toMatchObject({ toolCallId: "call_1", isError: true })
  })

  it("an edit of the child's call reaches the child with its own id", async () => {
    const { parent, refunds } = numbered()
    const suspended = await parent.run("refund")
    const final = await parent.resume(suspended, [Decision.edit("call_1/call_1", { amount: 20 })])
    expect(final.execution.status).toBe("completed")
    expect(refunds.map((r) => r.amount)).toEqual([20])
  })

  it("escapes `/` and `%` in an id, so a path never reads as another call's id", async () => {
    const refunds: Array<string> = []
    const refund = Tool.make({ name: "refund", parameters: t.type({}), execute: (_, c) => (refunds.push(c.toolCall.id), "ok") })
    const approval = UseHook((ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" })
    const child = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ id: "b", name: "refund", arguments: {} }]), ScriptedDriver.text("child done")])),
      UseTools([refund]),
      approval,
    )
    // The parent's own call "a/b" waits too, beside the subagent's call "a" whose child waits on "b".
    const parent = AgentBuilder.make(
      UseDriver(ScriptedDriver.make([
        ScriptedDriver.toolCalls([{ id: "a", name: "refunds", arguments: { prompt: "go" } }, { id: "a/b", name: "refund", arguments: {} }]),
        ScriptedDriver.text("done"),
      ])),
      UseTools([Tool.fromAgent(child, { name: "refunds" }), refund]),
      approval,
    )
    const suspended = await parent.run("go")
    expect(exposed(suspended)).toEqual(["a/b"])
    // "a/b" names the child's call; the parent's own "a/b" is "a%2Fb".
    const half = await parent.resume(suspended, [Decision.approve("a/b")])
    expect(refunds).toEqual(["b"])
    expect(half.execution.pendingCalls?.map((p) => p.toolCall.id)).toEqual(["a/b"])
    // Given as it is, "a/b" names the parent's own call once no subagent call "a" waits.
    expect(Decision.validate(half, [Decision.approve("a/b")])).toMatchObject({ _tag: "Success" })
    await expect(parent.resume(half, [Decision.approve("a/b"), Decision.approve("a%2Fb")])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "repeated" })
    const final = await parent.resume(half, [Decision.approve("a%2Fb")])
    expect(final.execution.status).toBe("completed")
    expect(refunds).toEqual(["b", "a/b"])
  })

  it("a path no child waits on is DecisionInvalid; one call decided twice is refused", async () => {
    const { parent, refunds } = numbered()
    const suspended = await parent.run("refund")
    await expect(parent.resume(suspended, [Decision.approve("call_1/call_2")])).rejects.toMatchObject({ _tag: "DecisionInvalid", reason: "unknown" })
    // One call decided twice.
    await expect(parent.resume(suspended, [Decision.approve("call_1/call_1"), Decision.reject("call_1/call_1", "no")])).rejects
      .toMatchObject({ _tag: "DecisionInvalid", reason: "repeated" })
    expect(refunds).toEqual([])
  })

  it("gives the child the same run id, and its tools the same idempotency keys, each time the call runs it; nested, the path of calls", async () => {
    const keys: Array<string> = []
    const refund = Tool.make({ name: "refund", parameters: t.type({}), execute: (_, c) => (keys.push(c.idempotencyKey), "ok") })
    const approval = UseHook((ctx) => ctx.toolCall?.name === "refund" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" })
    const ids = recorder("BeforeExecution")
    const make = () => {
      const grandchild = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "refund", arguments: {} }]), ScriptedDriver.text("g")])),
        UseTools([refund]),
        approval,
        ids.use,
      )
      const child = AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "deeper", arguments: { prompt: "go" } }]), ScriptedDriver.text("c")])),
        UseTools([Tool.fromAgent(grandchild, { name: "deeper" })]),
      )
      return AgentBuilder.make(
        UseDriver(ScriptedDriver.make([ScriptedDriver.toolCalls([{ name: "research", arguments: { prompt: "go" } }]), ScriptedDriver.text("top")])),
        UseTools([Tool.fromAgent(child, { name: "research" })]),
      )
    }
    // Two runs of the same conversation, from scratch (a replay after a crash does this).
    for (let i = 0; i < 2; i++) {
      const agent = make()
      const suspended = await agent.run(AgentState.make({ id: "top", messages: [] }))
      const final = await agent.resume(suspended, [Decision.approve("call_1/call_1/call_1")])
      expect(final.execution.status).toBe("completed")
    }
    expect(ids.states.map((s) => s.id)).toEqual(["top/call_1/call_1", "top/call_1/call_1", "top/call_1/call_1", "top/call_1/call_1"])
    expect(keys).toEqual(["top/call_1/call_1:call_1", "top/call_1/call_1:call_1"])
  })
})
