/**
 * The agent-loop workload: whole runs of `AgentLoop.run` against a fake model that
 * answers at once, against a hand-written loop that does the same work without
 * hookline. A run takes milliseconds, far above the cost of a clock reading, so each
 * run is timed on its own (see `sample`); the parts of a step, which take nanoseconds
 * to a microsecond, are timed with the batch machinery of measure.ts (`partCases`).
 *
 * - W1: one run of 50 steps (49 `echo` tool calls, then a final text), K = 0, 5, 20
 *   observer hooks on every trigger.
 * - W2: one run of 10 steps (9 calls, then a final text), K = 5, after a seeded history
 *   of H = 10, 1,000, 10,000 messages.
 * - The user path (UserPath.ts): W1 through the Promise facade (`agent.run`) and the
 *   streaming facade (`agent.stream`), with an async model, an async tool, the default
 *   guards and K observers added with `UseHook`, K = 0, 5, 20.
 */
import { type Agent, AgentLoop, Driver, Tool, Tools } from "@hookline/agent"
import {
  AgentError,
  AgentState,
  AppendLog,
  HookContext,
  HookStack,
  HookTriggers,
  InferenceRequest,
  InferenceResponse,
  Message,
  Step,
  StopReason,
  StopSignal,
  ToolCall,
  WrapHook,
  type Hook,
  type HookTrigger,
} from "@hookline/core"
import { Effect } from "effect"
import * as t from "io-ts"
import { measure, quantile, type Case, type Settings, type Summary } from "./measure.js"
import * as UserPath from "./UserPath.js"

/** W1: steps per run, and observers per trigger. */
export const w1Steps = 50
export const w1Ks = [0, 5, 20] as const
/** W2: steps per run, observers per trigger, and messages in the history a run starts from. */
export const w2Steps = 10
export const w2K = 5
export const w2Hs = [10, 1_000, 10_000] as const

/** Targets of the issue. */
export const stepTargets: ReadonlyArray<{ readonly K: number; readonly us: number }> = [{ K: 0, us: 3 }, { K: 20, us: 15 }]
export const flatnessTarget = 1.5
/** Targets of the user path (issue 14): the Promise facade, µs per step; the streamed facade within `streamTarget`x of it. */
export const userTargets: ReadonlyArray<{ readonly K: number; readonly us: number }> = [{ K: 0, us: 5 }, { K: 20, us: 8 }]
export const streamTarget = 1.5

// [0] hook calls, [1] messages seen by hooks: kept so that no observer body is dead
// code. A typed array, not a `let` (a number past the small-integer range is boxed
// anew on every `+=`).
const counters = new Float64Array(2)

/** What the observers saw; printed at the end of a run. */
export const observed = (): { readonly calls: number; readonly seen: number } => ({
  calls: counters[0] ?? 0,
  seen: counters[1] ?? 0,
})

// One function literal for hookline's observers, one with the same body for the bare
// loop's: each call site stays monomorphic on its own side.
const observer = (): Hook => (ctx) => {
  counters[0] = (counters[0] as number) + 1
  counters[1] = (counters[1] as number) + ctx.state.context.messages.length
  return ctx
}

// ---------------------------------------------------------------------------------
// The fake model and the tool

/** Step s (1-based) of a run of `steps`: an echo call with {"i": s}; the last step: a final text. */
export const responses = (steps: number): ReadonlyArray<InferenceResponse> =>
  Object.freeze(Array.from({ length: steps }, (_, i) =>
    i < steps - 1
      ? InferenceResponse.make({ toolCalls: [ToolCall.make({ id: `call-${i + 1}`, name: "echo", arguments: { i: i + 1 } })] })
      : InferenceResponse.make({ text: "done" })))

// Each step adds two messages (the assistant's, the tool's), so the step a request
// belongs to follows from the length of its history: no counter to reset between runs.
/** The 0-based step of a request with `messages` messages, in a run whose seed had `base`. */
export const stepOf = (messages: number, base: number): number => (messages - base) >> 1

const fakeModel = (script: ReadonlyArray<InferenceResponse>, base: number): Driver =>
  Driver.make({
    generate: (request) => {
      const response = script[stepOf(request.messages.length, base)]
      return response === undefined
        ? Effect.fail(AgentError.inferenceFailed(`the fake model has no answer for ${request.messages.length} messages`))
        : Effect.succeed(response)
    },
  })

const echo = Tool.make({ name: "echo", parameters: t.type({ i: t.number }), execute: ({ i }) => i })
const tools = Tools.make([echo])

// ---------------------------------------------------------------------------------
// hookline

/** The triggers a run of `steps` steps (every step but the last calls one tool) dispatches, in order. */
const expectedTriggers = (steps: number): ReadonlyArray<HookTrigger> => {
  const out: Array<HookTrigger> = ["BeforeExecution"]
  for (let s = 1; s <= steps; s++) {
    out.push("BeforeStep", "BeforeInference", "AfterInference")
    if (s < steps) out.push("BeforeToolUse", "AfterToolUse")
    out.push("AfterStep")
  }
  // The last step's Completed signal: OnStop, then the end.
  out.push("OnStop", "AfterExecution")
  return out
}

/** Dispatches (trigger points reached) per run of `steps` steps: 301 for 50 steps, 61 for 10. */
export const dispatchesPerRun = (steps: number): number => expectedTriggers(steps).length

/** H messages, alternating user and assistant, frozen. */
export const history = (H: number): ReadonlyArray<Message> =>
  Object.freeze(Array.from({ length: H }, (_, i) => (i % 2 === 0 ? Message.user(`question ${i}`) : Message.assistant(`answer ${i}`))))

/** K observers (`make` gives each) on every trigger. */
export const stackOf = (K: number, make: () => Hook = observer): HookStack =>
  Array.from({ length: K }, () => make()).reduce<HookStack>(
    (s, hook, i) => HookStack.with(s, hook, { triggers: HookTriggers.all, name: `observer:${i}` }),
    HookStack.empty,
  )

interface Fixture {
  readonly K: number
  readonly H: number
  readonly steps: number
  readonly loop: AgentLoop
  readonly driver: Driver
  /** The history a run starts from, frozen messages shared by every input. */
  readonly seed: ReadonlyArray<Message>
  /** A pending state over the seed, made once. */
  readonly stored: AgentState
}

/** One pass-through wrap hook around each model call and each tool execution. */
export const withOneWrapPerCall = (stack: HookStack): HookStack =>
  HookStack.withWrap(
    HookStack.withWrap(stack, WrapHook.inference<never>((ctx, next) => next(ctx)), { name: "bench:wrap_model" }),
    WrapHook.toolUse<never>((ctx, next) => next(ctx)),
    { name: "bench:wrap_tool" },
  )

const fixture = (K: number, H: number, steps: number, wrapped = false): Fixture => {
  // W1 starts from one user message (H = 1); W2 from H messages.
  const seed = history(H)
  return {
    K,
    H,
    steps,
    loop: AgentLoop.make({ interceptor: wrapped ? withOneWrapPerCall(stackOf(K)) : stackOf(K), tools }),
    driver: fakeModel(responses(steps), seed.length),
    seed,
    stored: AgentState.make({ id: "stored", messages: seed }),
  }
}

/**
 * A fresh pending state (an id of its own) over the history stored once, as a server
 * continues a stored conversation: made outside the timed region, with no copy of the
 * history (a copy per run would time the collector freeing it, not the loop).
 */
const freshInput = (f: Fixture, i: number): AgentState =>
  AgentState.update(f.stored, (draft) => {
    draft.id = `bench-${i}`
  })

let inputs = 0

const program = (f: Fixture, input: AgentState): Effect.Effect<AgentState> =>
  AgentLoop.run(f.loop, input).pipe(Effect.provideService(Driver.Driver, f.driver))

const runOnce = (f: Fixture, input: AgentState): Promise<AgentState> => Effect.runPromise(program(f, input))

// ---------------------------------------------------------------------------------
// The user path: the same script, history and observers, through the facade.

/** The agent of UserPath.ts over a fixture's script and observers. */
const userAgent = (f: Fixture): Agent =>
  UserPath.agent({ script: responses(f.steps), stepOf: (messages) => stepOf(messages, f.seed.length), K: f.K, observer })

/** How a user-path case runs: the Promise facade or the streaming facade. */
export type UserMode = "facade" | "stream"

const userRun = (agent: Agent, mode: UserMode) => (input: AgentState): Promise<AgentState> =>
  mode === "facade" ? agent.run(input) : UserPath.streamed(agent, input)

// ---------------------------------------------------------------------------------
// The hand-written loop: a plain array of messages appended to, the same responses,
// the echo function, and K observer calls at each of the same trigger points. No
// Effect, no freezing, no hookline.

interface BareState {
  readonly context: { readonly messages: Array<unknown> }
}
interface BareContext {
  readonly trigger: string
  readonly state: BareState
}
type BareObserver = (ctx: BareContext) => BareContext

const bareObserver = (): BareObserver => (ctx) => {
  counters[0] = (counters[0] as number) + 1
  counters[1] = (counters[1] as number) + ctx.state.context.messages.length
  return ctx
}

interface BareFixture {
  readonly K: number
  readonly H: number
  readonly steps: number
  readonly observers: ReadonlyArray<BareObserver>
  readonly script: ReadonlyArray<InferenceResponse>
  readonly seed: ReadonlyArray<unknown>
}

interface BareResult {
  readonly messages: ReadonlyArray<unknown>
  readonly steps: number
  readonly points: number
  readonly text: string
}

/** The `i` of an echo call's arguments (the bare loops' argument check). */
export const echoArgs = (args: unknown): number => {
  if (typeof args !== "object" || args === null || typeof (args as { i?: unknown }).i !== "number") throw new Error("bad arguments")
  return (args as { i: number }).i
}

// `messages` holds the seed history; the run appends to it.
const bareRun = (f: BareFixture, messages: Array<unknown>): BareResult => {
  const { observers, script } = f
  const state: BareState = { context: { messages } }
  const base = messages.length
  let points = 0
  const point = (trigger: string): void => {
    points++
    let ctx: BareContext = { trigger, state }
    for (let i = 0; i < observers.length; i++) ctx = (observers[i] as BareObserver)(ctx)
  }
  point("BeforeExecution")
  let steps = 0
  let text = ""
  for (;;) {
    point("BeforeStep")
    point("BeforeInference")
    const response = script[stepOf(messages.length, base)]
    if (response === undefined) throw new Error("the fake model has no answer")
    point("AfterInference")
    messages.push({ role: "assistant", content: response.text, toolCalls: response.toolCalls })
    for (const call of response.toolCalls) {
      point("BeforeToolUse")
      const output = echoArgs(call.arguments)
      point("AfterToolUse")
      messages.push({ role: "tool", toolCallId: call.id, toolName: call.name, content: JSON.stringify(output), isError: false })
    }
    steps++
    point("AfterStep")
    if (response.toolCalls.length === 0) {
      text = response.text
      point("OnStop")
      break
    }
  }
  point("AfterExecution")
  return { messages, steps, points, text }
}

const bareFixture = (f: Fixture): BareFixture => ({
  K: f.K,
  H: f.H,
  steps: f.steps,
  observers: Array.from({ length: f.K }, bareObserver),
  script: responses(f.steps),
  seed: f.seed,
})

// ---------------------------------------------------------------------------------
// Validation (outside the timed region): not a test, a guard against timing the wrong thing.

const fail = (what: string, detail: string): never => {
  throw new Error(`loop bench ${what}: ${detail}`)
}

const validateHookline = (name: string, f: Fixture): Promise<void> => validateRun(name, f, (input) => runOnce(f, input))

const validateRun = async (name: string, f: Fixture, run: (input: AgentState) => Promise<AgentState>): Promise<void> => {
  const input = freshInput(f, inputs++)
  const callsBefore = observed().calls
  const state = await run(input)
  const calls = observed().calls - callsBefore
  const { execution, context } = state
  const steps = execution.steps.toArray()
  const added = context.messages.slice(f.seed.length)
  const results = added.filter(Message.isTool)
  const last = context.messages.last()
  const expected = dispatchesPerRun(f.steps)
  if (execution.status !== "completed") fail(name, `status ${execution.status} (${execution.errors.map((e) => e.message).join("; ")})`)
  if (steps.length !== f.steps) fail(name, `${steps.length} steps, expected ${f.steps}`)
  if (results.length !== f.steps - 1) fail(name, `${results.length} tool results, expected ${f.steps - 1}`)
  results.forEach((m, i) => {
    if (m.isError || m.content !== String(i + 1)) fail(name, `tool result ${i + 1} is ${JSON.stringify(m)}`)
  })
  if (last === undefined || last.role !== "assistant" || last.content !== "done") fail(name, `the last message is ${JSON.stringify(last)}`)
  if (added.length !== 2 * f.steps - 1) fail(name, `${added.length} messages added, expected ${2 * f.steps - 1}`)
  if (calls !== f.K * expected) fail(name, `${calls} hook calls, expected K × dispatches = ${f.K} × ${expected}`)
}

const validateBare = (name: string, f: BareFixture): void => {
  const callsBefore = observed().calls
  const r = bareRun(f, f.seed.slice())
  const calls = observed().calls - callsBefore
  const expected = dispatchesPerRun(f.steps)
  if (r.steps !== f.steps || r.text !== "done" || r.messages.length !== f.seed.length + 2 * f.steps - 1) {
    fail(name, `${r.steps} steps, ${r.messages.length} messages, text ${JSON.stringify(r.text)}`)
  }
  if (r.points !== expected || calls !== f.K * expected) fail(name, `${r.points} trigger points and ${calls} observer calls, expected ${expected} and ${f.K * expected}`)
}

/**
 * The triggers a W1 run dispatches, recorded by a hook on every trigger: they must be
 * `expectedTriggers`, so that K × dispatchesPerRun counts the hook calls.
 */
const census = async (): Promise<void> => {
  const seen: Array<HookTrigger> = []
  const record: Hook = (ctx) => {
    seen.push(ctx.trigger)
    return ctx
  }
  const f = fixture(0, 1, w1Steps)
  const loop = AgentLoop.make({ interceptor: HookStack.with(HookStack.empty, record, { triggers: HookTriggers.all }), tools })
  await Effect.runPromise(AgentLoop.run(loop, freshInput(f, inputs++)).pipe(Effect.provideService(Driver.Driver, f.driver)))
  const expected = expectedTriggers(w1Steps)
  if (seen.join() !== expected.join()) fail("census", `the run dispatched ${seen.length} triggers, expected ${expected.length}: ${seen.join(", ")}`)
}

// ---------------------------------------------------------------------------------
// Timing whole runs

/** How long to run. `BENCH_QUICK=1`: a smoke check. */
export interface LoopSettings {
  readonly quick: boolean
  /** Every case runs this long before any is measured, ms. */
  readonly preWarmMs: number
  /** The measurement is split into rounds; each round runs every case in turn. */
  readonly rounds: number
  /** Time per case over all rounds, ms (at least; `minRuns` may take longer). */
  readonly timeMs: number
  /** Runs per case over all rounds, at least. */
  readonly minRuns: number
}

export const loopSettingsFromEnv = (env: NodeJS.ProcessEnv = process.env): LoopSettings =>
  env["BENCH_QUICK"] === "1"
    ? { quick: true, preWarmMs: 30, rounds: 3, timeMs: 90, minRuns: 30 }
    : { quick: false, preWarmMs: 300, rounds: 6, timeMs: 2_400, minRuns: 60 }

/** One timed configuration. `prepare` makes a run's input (untimed) and returns the run. */
interface LoopCase {
  readonly name: string
  readonly steps: number
  readonly prepare: () => () => number | Promise<number>
}

/** Microseconds per run of one case: median, p10, p90, over every timed run. */
export interface RunSummary {
  readonly name: string
  readonly steps: number
  readonly runs: number
  readonly p10: number
  readonly p50: number
  readonly p90: number
}

let checksum = 0

/** A number folded from every run, printed at the end so nothing is optimized away. */
export const getLoopChecksum = (): number => checksum

const clock = (): bigint => process.hrtime.bigint()

/** Runs a case until `ms` and `runs` are both reached; pushes each run's µs to `into`. */
const sample = async (c: LoopCase, ms: number, runs: number, into: Array<number> | undefined): Promise<void> => {
  const until = clock() + BigInt(Math.round(ms * 1e6))
  for (let i = 0; i < runs || clock() < until; i++) {
    const go = c.prepare()
    const start = clock()
    const out = go()
    checksum += typeof out === "number" ? out : await out
    const ns = Number(clock() - start)
    into?.push(ns / 1000)
  }
}

/** Warms every case, then times every run of each, in rounds that visit each case in turn. */
const measureRuns = async (
  cases: ReadonlyArray<LoopCase>,
  settings: LoopSettings,
  onProgress: (line: string) => void,
): Promise<ReadonlyMap<string, RunSummary>> => {
  for (const c of cases) await sample(c, settings.preWarmMs, 3, undefined)
  onProgress(`warmed up ${cases.length} loop cases`)
  const times = new Map(cases.map((c) => [c.name, [] as Array<number>]))
  for (let round = 0; round < settings.rounds; round++) {
    for (const c of cases) {
      await sample(c, settings.timeMs / settings.rounds, Math.ceil(settings.minRuns / settings.rounds), times.get(c.name))
    }
    onProgress(`  round ${round + 1}/${settings.rounds}`)
  }
  return new Map(cases.map((c) => {
    const sorted = (times.get(c.name) ?? []).sort((a, b) => a - b)
    return [c.name, { name: c.name, steps: c.steps, runs: sorted.length, p10: quantile(sorted, 0.1), p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) }]
  }))
}

const hooklineCase = (
  name: string,
  f: Fixture,
  input: (i: number) => AgentState = (i) => freshInput(f, i),
  run: (input: AgentState) => Promise<AgentState> = (state) => runOnce(f, state),
): LoopCase => ({
  name,
  steps: f.steps,
  prepare: () => {
    const state = input(inputs++)
    return () => run(state).then((s) => s.context.messages.length + s.execution.steps.length)
  },
})

const bareCase = (name: string, f: BareFixture): LoopCase => ({
  name,
  steps: f.steps,
  prepare: () => {
    // The copy of the seed is made outside the timed region, as hookline's input state is.
    const messages = f.seed.slice()
    return () => {
      const r = bareRun(f, messages)
      return r.messages.length + r.steps
    }
  },
})

const key = (kind: string, K: number, H: number): string => `${kind} K=${K} H=${H}`

/** The fixtures and cases of both workloads, each validated once. */
const loopCases = async (): Promise<ReadonlyArray<LoopCase>> => {
  await census()
  const out: Array<LoopCase> = []
  const add = async (kind: "w1" | "w2", K: number, H: number, steps: number): Promise<void> => {
    const f = fixture(K, H, steps)
    const b = bareFixture(f)
    const name = key(kind, K, H)
    await validateHookline(`hookline ${name}`, f)
    validateBare(`bare ${name}`, b)
    out.push(hooklineCase(`hookline ${name}`, f), bareCase(`bare ${name}`, b))
    if (kind === "w2") {
      // The same input state for every run: the first append of each run branches the
      // history (an older snapshot of a shared backing array).
      const same = freshInput(f, inputs++)
      out.push(hooklineCase(`same-input ${name}`, f, () => same))
    }
  }
  for (const K of w1Ks) await add("w1", K, 1, w1Steps)
  {
    // W1, K = 0, with one wrap hook around each model call and each tool execution.
    const f = fixture(0, 1, w1Steps, true)
    await validateHookline(`hookline wrap ${key("w1", 0, 1)}`, f)
    out.push(hooklineCase(`hookline wrap ${key("w1", 0, 1)}`, f))
  }
  for (const H of w2Hs) await add("w2", w2K, H, w2Steps)
  for (const K of w1Ks) {
    const f = fixture(K, 1, w1Steps)
    const agent = userAgent(f)
    for (const mode of ["facade", "stream"] as const) {
      const name = `user-${mode} ${key("w1", K, 1)}`
      await validateRun(name, f, userRun(agent, mode))
      out.push(hooklineCase(name, f, undefined, userRun(agent, mode)))
    }
  }
  return out
}

// ---------------------------------------------------------------------------------
// Report

/** A row of the W1 or W2 table. µs per step = µs per run / steps. */
export interface LoopRow {
  readonly K: number
  readonly H: number
  readonly steps: number
  readonly hookline: RunSummary
  readonly bare: RunSummary
  /** hookline / bare, medians. */
  readonly ratio: number
  /** W2: hookline at this H / hookline at H = 10. */
  readonly flatness: number | undefined
  /** W2: the same input state reused by every run. */
  readonly sameInput: RunSummary | undefined
}

export interface Verdict {
  readonly text: string
  readonly met: boolean
}

/** A row of the user-path table: W1 through the facades, against the internal path. */
export interface UserRow {
  readonly K: number
  readonly steps: number
  /** `agent.run(state)`. */
  readonly facade: RunSummary
  /** `for await (const event of agent.stream(state))`. */
  readonly stream: RunSummary
  /** `Effect.runPromise(AgentLoop.run(...))`, Effect driver, synchronous tool (the W1 row). */
  readonly internal: RunSummary
}

export interface LoopReport {
  readonly w1: ReadonlyArray<LoopRow>
  /** W1, K = 0, with one pass-through wrap hook per model call and per tool execution. */
  readonly wrapped: RunSummary
  readonly w2: ReadonlyArray<LoopRow>
  readonly user: ReadonlyArray<UserRow>
  readonly verdicts: ReadonlyArray<Verdict>
  /** On the user path's targets. */
  readonly userVerdicts: ReadonlyArray<Verdict>
  readonly minRuns: number
}

const need = <A>(results: ReadonlyMap<string, A>, name: string): A => {
  const found = results.get(name)
  if (found === undefined) throw new Error(`no result for ${name}`)
  return found
}

/** µs per step of a summary's median. */
export const perStep = (s: RunSummary): number => s.p50 / s.steps

const report = (results: ReadonlyMap<string, RunSummary>): LoopReport => {
  const w1 = w1Ks.map((K): LoopRow => {
    const hookline = need(results, `hookline ${key("w1", K, 1)}`)
    const bare = need(results, `bare ${key("w1", K, 1)}`)
    return { K, H: 1, steps: w1Steps, hookline, bare, ratio: hookline.p50 / bare.p50, flatness: undefined, sameInput: undefined }
  })
  const base = need(results, `hookline ${key("w2", w2K, w2Hs[0])}`)
  const w2 = w2Hs.map((H): LoopRow => {
    const hookline = need(results, `hookline ${key("w2", w2K, H)}`)
    const bare = need(results, `bare ${key("w2", w2K, H)}`)
    return {
      K: w2K,
      H,
      steps: w2Steps,
      hookline,
      bare,
      ratio: hookline.p50 / bare.p50,
      flatness: hookline.p50 / base.p50,
      sameInput: need(results, `same-input ${key("w2", w2K, H)}`),
    }
  })
  const verdicts: Array<Verdict> = stepTargets.map(({ K, us }) => {
    const row = w1.find((r) => r.K === K)
    const got = row === undefined ? Number.NaN : perStep(row.hookline)
    const met = got <= us
    return { met, text: `target: <= ${us} µs per step with K=${K}: ${met ? "met" : "missed"} (${got.toFixed(2)} µs, ${(got / us).toFixed(2)}x the target)` }
  })
  const last = w2[w2.length - 1]
  const flat = last?.flatness ?? Number.NaN
  const flatMet = flat <= flatnessTarget
  verdicts.push({
    met: flatMet,
    text: `target: W2 flat in history (<= ${flatnessTarget}x from ${w2Hs[0]} to ${(last?.H ?? 0).toLocaleString("en-US")}): ${flatMet ? "met" : "missed"} (${flat.toFixed(2)}x)`,
  })
  const user = w1Ks.map((K): UserRow => ({
    K,
    steps: w1Steps,
    facade: need(results, `user-facade ${key("w1", K, 1)}`),
    stream: need(results, `user-stream ${key("w1", K, 1)}`),
    internal: need(results, `hookline ${key("w1", K, 1)}`),
  }))
  const userVerdicts: Array<Verdict> = userTargets.map(({ K, us }) => {
    const row = user.find((r) => r.K === K)
    const got = row === undefined ? Number.NaN : perStep(row.facade)
    const met = got <= us
    return { met, text: `target (user path): <= ${us} µs per step with K=${K}, Promise facade: ${met ? "met" : "missed"} (${got.toFixed(2)} µs, ${(got / us).toFixed(2)}x the target)` }
  })
  for (const row of user) {
    const x = row.stream.p50 / row.facade.p50
    const met = x <= streamTarget
    userVerdicts.push({ met, text: `target (user path): streamed within ${streamTarget}x of the Promise facade, K=${row.K}: ${met ? "met" : "missed"} (${x.toFixed(2)}x)` })
  }
  const minRuns = Math.min(...[...results.values()].map((s) => s.runs))
  const wrapped = need(results, `hookline wrap ${key("w1", 0, 1)}`)
  return { w1, wrapped, w2, user, verdicts, userVerdicts, minRuns }
}

/** Validates, warms up and times every loop case. */
export const runLoop = async (settings: LoopSettings, onProgress: (line: string) => void): Promise<LoopReport> =>
  report(await measureRuns(await loopCases(), settings, onProgress))

// ---------------------------------------------------------------------------------
// The parts of a step, timed with measure.ts (batches of calls, tinybench)

/**
 * One part of the loop's work, and how many times a W1 tool step (K = 0) does it: the
 * fixed cost of a run counts 1/50 per step. `perStep` is undefined for the 1-step run
 * and for reference rows (alternatives that hookline does not use, measured to size a
 * proposed change).
 */
export interface Part {
  readonly name: string
  readonly label: string
  readonly perStep: number | undefined
  readonly unit: "call" | "run"
}

export const parts: ReadonlyArray<Part> = [
  { name: "part run0", label: "Effect.runPromise(AgentLoop.run), 0 steps (input with a stop signal)", perStep: 1 / w1Steps, unit: "run" },
  { name: "part run1", label: "Effect.runPromise(AgentLoop.run), 1 step (final text)", perStep: undefined, unit: "run" },
  { name: "part gen", label: "(reference) Effect.gen of a new generator function, in a fiber (the first loop's step and runTools)", perStep: undefined, unit: "call" },
  { name: "part tools", label: "Tools.execute(echo), in a fiber", perStep: 1, unit: "call" },
  { name: "part ctx", label: "HookContext.make (AfterToolUse: tool call and execution); 6 per step at K > 0, none at K = 0", perStep: 0, unit: "call" },
  { name: "part request", label: "InferenceRequest.make, as the loop builds it", perStep: 1, unit: "call" },
  { name: "part assistant", label: "Message.assistant with the response's tool calls", perStep: 1, unit: "call" },
  { name: "part append", label: "AgentState.appendMessage", perStep: 2, unit: "call" },
  { name: "part step", label: "Step.make + AgentState.appendStep", perStep: 1, unit: "call" },
  { name: "part clock", label: "a Clock reading (currentTimeMillisUnsafe: Date.now): after the model and after the tool", perStep: 2, unit: "call" },
  { name: "part gen-shared", label: "Effect.gen over a generator function made once (each step)", perStep: 1, unit: "call" },
  { name: "part literal", label: "(reference) the state of AgentState.appendMessage as explicit frozen literals", perStep: undefined, unit: "call" },
]

// Made once per module: what the "shared" reference row yields from.
function* sharedBody(i: number): Generator<never, number, never> {
  return i
}

const partCases = (): ReadonlyArray<Case> => {
  const f = fixture(0, 1, 1)
  const state = freshInput(f, inputs++)
  const call = ToolCall.make({ id: "call-1", name: "echo", arguments: { i: 1 } })
  const response = InferenceResponse.make({ toolCalls: [call] })
  const stopped = AgentState.withStopSignal(state, StopSignal.make(StopReason.Completed, "stopped before the first step", "bench"))
  const request = InferenceRequest.make({ systemPrompt: "", messages: state.context.messages, tools: tools.definitions, options: f.loop.modelOptions })
  const executionOf = Effect.runSync(Tools.execute(tools, call, { state }))
  const message = Message.user("more")
  const clock = Effect.runSync(Effect.clockWith((c) => Effect.succeed(c)))
  // Appends go to a chain of states restarted every 100 appends, as a run's history grows.
  const chain = (step: (s: AgentState, i: number) => AgentState) => (n: number): number => {
    let s = state
    let acc = 0
    for (let i = 0; i < n; i++) {
      if (i % 100 === 0) {
        acc += s.context.messages.length
        s = freshInput(f, 0)
      }
      s = step(s, i)
    }
    return acc + s.context.messages.length
  }
  const inFiber = (body: (n: number) => Generator<Effect.Effect<unknown>, number, never>) => (n: number): number =>
    Effect.runSync(Effect.gen(() => body(n)))
  const runs = (input: () => AgentState, fixed: Fixture) => async (n: number): Promise<number> => {
    let acc = 0
    for (let i = 0; i < n; i++) acc += (await runOnce(fixed, input())).context.messages.length
    return acc
  }
  const one = fixture(0, 1, 1)
  return [
    { name: "part run0", async: true, run: runs(() => stopped, f) },
    { name: "part run1", async: true, run: runs(() => freshInput(one, 0), one) },
    {
      name: "part gen",
      async: false,
      run: inFiber(function*(n) {
        let acc = 0
        // A generator function literal evaluated per call, as in the engine's methods.
        for (let i = 0; i < n; i++) acc += yield* Effect.gen(function*() { return i })
        return acc
      }),
    },
    {
      name: "part gen-shared",
      async: false,
      run: inFiber(function*(n) {
        let acc = 0
        for (let i = 0; i < n; i++) acc += yield* Effect.gen(() => sharedBody(i))
        return acc
      }),
    },
    {
      name: "part tools",
      async: false,
      run: inFiber(function*(n) {
        let acc = 0
        for (let i = 0; i < n; i++) acc += (yield* Tools.execute(tools, call, { state })).completedAt
        return acc
      }),
    },
    {
      name: "part ctx",
      async: false,
      run: (n) => {
        let acc = 0
        for (let i = 0; i < n; i++) acc += HookContext.make({ trigger: "AfterToolUse", state, createdAt: i, toolCall: call, toolExecution: executionOf }).createdAt
        return acc
      },
    },
    {
      name: "part request",
      async: false,
      run: (n) => {
        let acc = 0
        for (let i = 0; i < n; i++) {
          acc += InferenceRequest.make({
            systemPrompt: state.context.systemPrompt,
            messages: state.context.messages,
            tools: tools.definitions,
            responseFormat: state.context.responseFormat,
            options: f.loop.modelOptions,
          }).messages.length
        }
        return acc + request.messages.length
      },
    },
    {
      name: "part assistant",
      async: false,
      run: (n) => {
        let acc = 0
        for (let i = 0; i < n; i++) acc += Message.assistant(response.text, response.toolCalls).toolCalls.length
        return acc
      },
    },
    { name: "part append", async: false, run: chain((s) => AgentState.appendMessage(s, message)) },
    {
      name: "part literal",
      async: false,
      run: chain((s) => {
        const c = s.context
        const context = Object.freeze({ systemPrompt: c.systemPrompt, responseFormat: c.responseFormat, messages: AppendLog.append(c.messages, message), metadata: c.metadata })
        return Object.freeze({ id: s.id, parentId: s.parentId, context, execution: s.execution, metadata: s.metadata })
      }),
    },
    {
      name: "part step",
      async: false,
      run: chain((s, i) => AgentState.appendStep(s, Step.make({ index: i, startedAt: 1, response, toolExecutions: [executionOf], completedAt: 2 }))),
    },
    {
      name: "part clock",
      async: false,
      run: (n) => {
        let acc = 0
        for (let i = 0; i < n; i++) acc += clock.currentTimeMillisUnsafe() & 1
        return acc
      },
    },
  ]
}

/** The parts of a step, each timed on its own (ns per call or per run). */
export const measureParts = async (
  settings: Settings,
  onProgress: (line: string) => void,
): Promise<ReadonlyMap<string, Summary>> => measure(partCases(), settings, onProgress)

/**
 * One W1 run with K observers, validated once: for profiling (profile-loop.ts). Each
 * call runs the loop once on a fresh input and resolves with the number of messages.
 */
export const w1Run = async (K: number, path: "internal" | UserMode = "internal"): Promise<() => Promise<number>> => {
  const f = fixture(K, 1, w1Steps)
  const run = path === "internal" ? (input: AgentState) => runOnce(f, input) : userRun(userAgent(f), path)
  await validateRun(`${path} ${key("w1", K, 1)}`, f, run)
  return () => run(freshInput(f, inputs++)).then((s) => s.context.messages.length)
}
