// Decisions across subagent boundaries, generated: a parent and (nested) children whose
// models number their calls per conversation (`call_1`, `call_2`, ... in each: ids
// collide across levels), some ids with `/` or `%` in them; every leaf call needs a
// person's approval. Rounds of random approve / edit / reject decisions on random
// waiting calls at any depth (a subagent's call itself is rejected, never approved:
// that would restart its child) until the run completes.
import { AgentState, HookContext, Message } from "@hookline/core"
import { ScriptedDriver } from "@hookline/testing"
import fc from "fast-check"
import * as t from "io-ts"
import { describe, expect, it } from "vitest"
import { type Agent, AgentBuilder, Decision, Tool, UseDriver, UseHook, UseLoopOptions, UseTools } from "../src/index.js"

interface Node {
  readonly concurrent: boolean
  readonly calls: ReadonlyArray<{ readonly id: string; readonly child: Node | null }>
}

// Ids every model uses (collisions across levels), and some that look like paths.
const ids = fc.oneof(fc.constantFrom("call_1", "call_2", "call_3"), fc.constantFrom("a", "b", "a/b", "a%2Fb", "%"))

const node = (depth: number): fc.Arbitrary<Node> =>
  fc.record({
    ids: fc.uniqueArray(ids, { minLength: 1, maxLength: 3 }),
    concurrent: fc.boolean(),
    children: fc.array(depth > 0 ? fc.oneof(fc.constant(null), node(depth - 1)) : fc.constant(null), { minLength: 3, maxLength: 3 }),
  }).map(({ ids, concurrent, children }) => ({ concurrent, calls: ids.map((id, i) => ({ id, child: children[i] ?? null })) }))

// The test's own account of names (the oracle): escaped ids joined by `/`.
const escape = (id: string): string => id.replaceAll("%", "%25").replaceAll("/", "%2F")
const nameOf = (path: ReadonlyArray<string>): string => path.map(escape).join("/")
const key = (path: ReadonlyArray<string>): string => JSON.stringify(path)

interface Ran {
  readonly tag: string
  readonly amount: number
  readonly runId: string
  readonly idempotencyKey: string
}

interface World {
  readonly ran: Array<Ran>
  // Every run id each node ran under (its first run and each resume), by the node's path.
  readonly runIds: Map<string, Set<string>>
  // Each node's last final state, by the node's path.
  readonly finals: Map<string, AgentState>
}

const act = (world: World) =>
  Tool.make({
    name: "act",
    parameters: t.type({ tag: t.string, amount: t.number }),
    execute: ({ tag, amount }, c) => (world.ran.push({ tag, amount, runId: c.state.id, idempotencyKey: c.idempotencyKey }), "acted"),
  })

const build = (tree: Node, path: ReadonlyArray<string>, world: World): Agent => {
  const calls = tree.calls.map((c, i): ScriptedDriver.ScriptedToolCall =>
    c.child === null
      ? { id: c.id, name: "act", arguments: { tag: key([...path, c.id]), amount: 1 } }
      : { id: c.id, name: `sub_${i}`, arguments: { prompt: "go" } }
  )
  const subagents = tree.calls.flatMap((c, i) => c.child === null ? [] : [Tool.fromAgent(build(c.child, [...path, c.id], world), { name: `sub_${i}` })])
  return AgentBuilder.make(
    // Answers from the history: its calls to the first message, then a text.
    UseDriver(ScriptedDriver.make([
      ScriptedDriver.respond((r) => r.messages.last()?.role === "user" ? ScriptedDriver.toolCalls(calls) : ScriptedDriver.text("done")),
    ], { repeatLast: true })),
    UseTools([act(world), ...subagents]),
    UseLoopOptions({ toolConcurrency: tree.concurrent ? "concurrent" : "sequential" }),
    UseHook((ctx) => ctx.toolCall?.name === "act" ? HookContext.suspend(ctx, "approve") : ctx, { triggers: "BeforeToolUse", name: "test:approval" }),
    UseHook((ctx) => {
      const ids = world.runIds.get(key(path)) ?? new Set()
      world.runIds.set(key(path), ids.add(ctx.state.id))
      return ctx
    }, { triggers: "BeforeExecution", name: "test:run_ids" }),
    UseHook((ctx) => (world.finals.set(key(path), ctx.state), ctx), { triggers: "AfterExecution", name: "test:finals" }),
  )
}

interface Leaf {
  readonly path: ReadonlyArray<string>
  // The subagent calls above it, outermost first.
  readonly above: ReadonlyArray<ReadonlyArray<string>>
}

const leavesOf = (tree: Node, path: ReadonlyArray<string> = [], above: ReadonlyArray<ReadonlyArray<string>> = []): ReadonlyArray<Leaf> =>
  tree.calls.flatMap((c) =>
    c.child === null ? [{ path: [...path, c.id], above }] : leavesOf(c.child, [...path, c.id], [...above, [...path, c.id]])
  )

const subagentCallsOf = (tree: Node, path: ReadonlyArray<string> = []): ReadonlyArray<ReadonlyArray<string>> =>
  tree.calls.flatMap((c) => c.child === null ? [] : [[...path, c.id], ...subagentCallsOf(c.child, [...path, c.id])])

// Every name a suspended state shows a person: its own calls' (escaped ids) and, in a
// subagent's payload, its child's at any depth (paths, as listed).
const shown = (state: AgentState): ReadonlyArray<string> => {
  const walk = (list: ReadonlyArray<unknown>, top: boolean): ReadonlyArray<string> =>
    list.flatMap((p) => {
      const { toolCall, payload } = p as { toolCall: { id: string }; payload?: { _tag?: string; pendingCalls?: ReadonlyArray<unknown> } }
      const name = top ? escape(toolCall.id) : toolCall.id
      return payload?._tag === "Subagent" ? [name, ...walk(payload.pendingCalls ?? [], false)] : [name]
    })
  return walk(state.execution.pendingCalls ?? [], true)
}

type Kind = "approve" | "edit" | "reject"

describe("Tool.fromAgent decisions (property)", () => {
  it("each decision reaches exactly the call it names; an approved call runs once (edited: with its edit), a rejected one never; child run ids stay put", async () => {
    await fc.assert(
      fc.asyncProperty(node(2), fc.gen(), async (tree, g) => {
        const world: World = { ran: [], runIds: new Map(), finals: new Map() }
        const agent = build(tree, [], world)
        const leaves = leavesOf(tree)
        const subagentCalls = subagentCallsOf(tree)
        const decided = new Map<string, Kind>()
        const rejectedSubagents = new Set<string>()
        // The leaves that run, and with what amount: approved or edited while nothing above was rejected.
        const runs = new Map<string, number>()
        const cut = (leaf: Leaf) => leaf.above.some((a) => rejectedSubagents.has(key(a)))
        const open = (leaf: Leaf) => !decided.has(key(leaf.path)) && !cut(leaf)
        let state = await agent.run(AgentState.make({ id: "top", messages: [Message.user("go")] }))
        for (let round = 0; state.execution.status === "suspended"; round++) {
          expect(round).toBeLessThanOrEqual(leaves.length + subagentCalls.length)
          // What waits, by the oracle: open leaves, and subagent calls with an open leaf below.
          const waitingLeaves = leaves.filter(open)
          const waitingSubagents = subagentCalls.filter((s) =>
            !rejectedSubagents.has(key(s)) && !s.slice(0, -1).some((_, i) => rejectedSubagents.has(key(s.slice(0, i + 1))))
            && waitingLeaves.some((l) => l.above.some((a) => key(a) === key(s)))
          )
          expect([...shown(state)].sort()).toEqual([...waitingLeaves.map((l) => nameOf(l.path)), ...waitingSubagents.map(nameOf)].sort())
          // A random non-empty choice of waiting calls, each with a random decision.
          const options: ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly leaf: boolean }> = [
            ...waitingLeaves.map((l) => ({ path: l.path, leaf: true })),
            ...waitingSubagents.map((path) => ({ path, leaf: false })),
          ]
          const chosen = g(fc.subarray, [...options], { minLength: 1 })
          const kinds = chosen.map(({ leaf }): Kind => leaf ? g(fc.constantFrom<Array<Kind>>, "approve", "edit", "reject") : "reject")
          // A subagent call rejected in this round cuts off what is decided below it in this round too.
          chosen.forEach(({ path, leaf }) => !leaf && rejectedSubagents.add(key(path)))
          const decisions = chosen.map(({ path, leaf }, i) => {
            const kind = kinds[i] as Kind
            const name = nameOf(path)
            if (leaf) {
              decided.set(key(path), kind)
              const l = leaves.find((x) => key(x.path) === key(path)) as Leaf
              if (kind !== "reject" && !cut(l)) runs.set(key(path), kind === "edit" ? 2 : 1)
            }
            return kind === "approve"
              ? Decision.approve(name)
              : kind === "edit"
              ? Decision.edit(name, { tag: key(path), amount: 2 })
              : Decision.reject(name, `no ${key(path)}`)
          })
          state = await agent.resume(state, decisions)
        }
        expect(state.execution.status).toBe("completed")
        // The side effects: exactly the approved and edited leaves that no rejection cut off, once each.
        const expected = [...runs].map(([tag, amount]) => ({ tag, amount }))
        expect(world.ran.map(({ tag, amount }) => ({ tag, amount })).sort(byTag)).toEqual(expected.sort(byTag))
        // Each ran in its node's run, whose id is the path of subagent calls from the top run.
        for (const r of world.ran) {
          const path = JSON.parse(r.tag) as ReadonlyArray<string>
          const runId = ["top", ...path.slice(0, -1).map(escape)].join("/")
          expect(r).toMatchObject({ runId, idempotencyKey: `${runId}:${path.at(-1)}` })
        }
        // Every node ran under one id, on its first run and every resume.
        for (const [path, runIds] of world.runIds) {
          expect([...runIds]).toEqual([["top", ...(JSON.parse(path) as ReadonlyArray<string>).map(escape)].join("/")])
        }
        // A rejection's message reached the call it named, in that call's own run.
        for (const l of leaves) {
          if (decided.get(key(l.path)) !== "reject" || cut(l)) continue
          const final = world.finals.get(key(l.path.slice(0, -1)))
          const answer = final?.context.messages.toArray().find((m) => m.role === "tool" && m.toolCallId === l.path.at(-1))
          expect(answer).toMatchObject({ isError: true, content: expect.stringContaining(`no ${key(l.path)}`) })
        }
      }),
      { numRuns: 60 },
    )
  })
})

const byTag = (a: { readonly tag: string }, b: { readonly tag: string }): number => a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0

