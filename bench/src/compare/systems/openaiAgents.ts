/**
 * The OpenAI Agents SDK (`@openai/agents` 0.20): an `Agent` with an `echo` tool made by
 * `tool()` with zod parameters, run by a `Runner` (`runner.run(agent, input, { maxTurns })`)
 * over a fake `Model` (the SDK's `ScriptedModel` consumes one scripted step per call and
 * records a detached copy of every request, so it cannot serve repeated or concurrent
 * runs). Tracing is disabled (`setTracingDisabled(true)` and `tracingDisabled` on the
 * runner), nothing else.
 *
 * Hook points: every lifecycle event that fires in a run with no handoff, on both
 * emitters the SDK offers (`Runner` is a `RunHooks`, `Agent` an `AgentHooks`: K listeners
 * on each event); the per-model-call hook `callModelInputFilter` (one function, calling
 * the K observers; `preserveInputIdentity` set, as the SDK allows for a filter that does
 * not mutate the items); and the per-tool-call tool input and output guardrails (K
 * guardrails each, as users list them). Left out: `agent_handoff` (no handoff), the
 * agent-level input/output guardrails (once per run, on the input and the final output:
 * checks, not loop hooks). With K = 0 nothing is registered.
 */
import { EventEmitter } from "node:events"
import { readFileSync } from "node:fs"
import {
  Agent,
  defineToolInputGuardrail,
  defineToolOutputGuardrail,
  Runner,
  setTracingDisabled,
  tool,
  ToolGuardrailFunctionOutputFactory,
  Usage,
  type AgentInputItem,
  type CallModelInputFilter,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type StreamEvent,
} from "@openai/agents"
import { z } from "zod"
import type { Counters, Prepared, System, Workload } from "../System.js"

setTracingDisabled(true)

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

// Message counts the observers read, kept so that no observer body is dead code.
const seen = new Float64Array(1)

type Observer = (messages: ReadonlyArray<unknown>) => void

/**
 * Only `agent_start` (the turn's input) and `callModelInputFilter` (the model's input)
 * carry the history; the other events and the guardrails get the call or the output, so
 * their observers read the length of an empty list instead.
 */
const none: ReadonlyArray<unknown> = Object.freeze([])

const observer = (): Observer => (messages) => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + messages.length
}

const hookPoints = [
  "RunHooks.agent_start",
  "AgentHooks.agent_start",
  "callModelInputFilter",
  "toolInputGuardrails",
  "RunHooks.agent_tool_start",
  "AgentHooks.agent_tool_start",
  "RunHooks.agent_tool_end",
  "AgentHooks.agent_tool_end",
  "toolOutputGuardrails",
  "RunHooks.agent_end",
  "AgentHooks.agent_end",
] as const

/**
 * Per run: `agent_start` and `agent_end` once on each emitter (4); `callModelInputFilter`
 * once per model call (S); per tool call (S - 1), the input and output guardrails and
 * `agent_tool_start`/`agent_tool_end` on each emitter (6).
 */
const firingsPerRun = (steps: number): number => 4 + steps + 6 * (steps - 1)

/**
 * The fake model: step s of S (from the length of the input it gets) calls echo {i: s},
 * or answers "done". `onCall` runs once per call (the comparison's counter by default;
 * the durable rows pass theirs).
 */
export class StepModel implements Model {
  readonly #base: number
  readonly #steps: number
  readonly #asyncModel: boolean
  readonly #onCall: () => void

  constructor(base: number, steps: number, asyncModel: boolean, onCall?: () => void) {
    this.#base = base
    this.#steps = steps
    this.#asyncModel = asyncModel
    this.#onCall = onCall ?? (() => {
      counters.modelCalls++
    })
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    if (this.#asyncModel) await new Promise<void>((resolve) => setImmediate(resolve))
    this.#onCall()
    const length = typeof request.input === "string" ? 1 : request.input.length
    // Each step adds two items (the function call, its output).
    const step = ((length - this.#base) >> 1) + 1
    if (step < this.#steps) {
      return {
        usage: new Usage(),
        output: [
          { type: "function_call", id: `fc_${step}`, callId: `call_${step}`, name: "echo", arguments: JSON.stringify({ i: step }), status: "completed" },
        ],
      }
    }
    if (step === this.#steps) {
      return {
        usage: new Usage(),
        output: [{ type: "message", id: "msg_done", role: "assistant", status: "completed", content: [{ type: "output_text", text: "done" }] }],
      }
    }
    throw new Error(`the fake model has no answer for ${length} input items`)
  }

  // eslint-disable-next-line require-yield
  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    throw new Error("the fake model does not stream")
  }
}

/** H alternating user/assistant messages, then "go". */
export const seedOf = (H: number): ReadonlyArray<AgentInputItem> => {
  const out: Array<AgentInputItem> = []
  for (let i = 0; i < H; i++) {
    out.push(
      i % 2 === 0
        ? { type: "message", role: "user", content: `question ${i}` }
        : { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `answer ${i}` }] },
    )
  }
  out.push({ type: "message", role: "user", content: "go" })
  return Object.freeze(out)
}

const prepare = async (workload: Workload): Promise<Prepared> => {
  const { steps, K, H, asyncModel } = workload
  const seed = seedOf(H)
  const observers = Array.from({ length: K }, observer)
  // Node warns past 10 listeners per event; K listeners per event are intended here.
  if (EventEmitter.defaultMaxListeners < K) EventEmitter.defaultMaxListeners = K

  const echo = tool({
    name: "echo",
    description: "Echoes i",
    parameters: z.object({ i: z.number() }),
    execute: ({ i }) => {
      counters.toolCalls++
      return i
    },
    inputGuardrails: observers.map((o, index) =>
      defineToolInputGuardrail({
        name: `observer-in-${index}`,
        run: async () => {
          o(none)
          return ToolGuardrailFunctionOutputFactory.allow()
        },
      }),
    ),
    outputGuardrails: observers.map((o, index) =>
      defineToolOutputGuardrail({
        name: `observer-out-${index}`,
        run: async () => {
          o(none)
          return ToolGuardrailFunctionOutputFactory.allow()
        },
      }),
    ),
  })

  const agent = new Agent({ name: "bench", model: new StepModel(seed.length, steps, asyncModel), tools: [echo] })

  let callModelInputFilter: CallModelInputFilter | undefined
  if (K > 0) {
    const filter: CallModelInputFilter = ({ modelData }) => {
      for (const o of observers) o(modelData.input)
      return modelData
    }
    filter.preserveInputIdentity = true
    callModelInputFilter = filter
  }
  const runner = new Runner({ tracingDisabled: true, ...(callModelInputFilter === undefined ? {} : { callModelInputFilter }) })

  for (const o of observers) {
    runner.on("agent_start", (_context, _agent, turnInput) => o(turnInput ?? none))
    runner.on("agent_tool_start", () => o(none))
    runner.on("agent_tool_end", () => o(none))
    runner.on("agent_end", () => o(none))
    agent.on("agent_start", (_context, _agent, turnInput) => o(turnInput ?? none))
    agent.on("agent_tool_start", () => o(none))
    agent.on("agent_tool_end", () => o(none))
    agent.on("agent_end", () => o(none))
  }

  const input = seed as Array<AgentInputItem>
  return {
    run: async () => {
      const result = await runner.run(agent, input, { maxTurns: steps })
      return result.finalOutput ?? ""
    },
  }
}

// The package's exports map has no "./package.json": read it beside bench/node_modules.
const version = (JSON.parse(readFileSync(new URL("../../../node_modules/@openai/agents/package.json", import.meta.url), "utf8")) as { version: string }).version

export const system: System = {
  name: "@openai/agents",
  version,
  hookPoints,
  firingsPerRun,
  counters,
  prepare,
}
