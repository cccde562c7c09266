/**
 * LangChain 1.x: `createAgent` (a LangGraph graph underneath) with an `echo` tool made
 * by `tool()` with a zod schema, and K observer middlewares made by `createMiddleware`,
 * each with every hook of 1.5: `beforeAgent`, `beforeModel`, `wrapModelCall`,
 * `afterModel`, `wrapToolCall`, `afterAgent` (K instances, as users compose middleware;
 * names must be unique). LangSmith tracing is off (its environment variables are cleared
 * before anything runs); no callbacks are passed.
 *
 * The model: `fakeModel()` from langchain (`@langchain/core/testing`) cannot serve
 * repeated or concurrent runs. Its script is a FIFO queue indexed by a process-wide call
 * counter (the queue would have to grow by S entries per run, forever), it records every
 * call with a copy of its messages (O(H) per call, kept alive for the whole process),
 * and its tool-call answers join the text of every message into the content (O(H) per
 * call). `FakeToolCallingModel` shares one index across runs and joins all contents too.
 * So the fake model here is a minimal `BaseChatModel` subclass: the same `invoke` path as
 * any chat model (callbacks manager, generation bookkeeping), an answer decided by the
 * length of the messages it receives, and `bindTools` binding call options the way
 * provider models do (without a provider's conversion of the tool schemas).
 */
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models"
import type { ChatResult } from "@langchain/core/outputs"
import { AIMessage, createAgent, createMiddleware, HumanMessage, tool, type BaseMessage } from "langchain"
import { z } from "zod"
import type { Counters, Prepared, System, Workload } from "../System.js"
import { versionOf } from "../Version.js"

for (const name of ["LANGCHAIN_TRACING_V2", "LANGCHAIN_TRACING", "LANGSMITH_TRACING", "LANGSMITH_TRACING_V2"]) delete process.env[name]

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

// Message counts the observers read, kept so that no observer body is dead code.
const seen = new Float64Array(1)

const observe = (messages: ReadonlyArray<unknown>): void => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + messages.length
}

const hookPoints = ["beforeAgent", "beforeModel", "wrapModelCall", "afterModel", "wrapToolCall", "afterAgent"] as const

/**
 * Per run: `beforeAgent` and `afterAgent` once; `beforeModel`, `wrapModelCall` and
 * `afterModel` once per model call (S); `wrapToolCall` once per tool call (S - 1).
 */
const firingsPerRun = (steps: number): number => 2 + 3 * steps + (steps - 1)

/**
 * The fake chat model: step s of S (from the messages it gets) asks for echo {i: s}, or
 * answers "done". `onCall` runs once per call (the comparison's counter by default; the
 * durable and memory rows pass theirs).
 */
export class StepModel extends BaseChatModel {
  readonly #base: number
  readonly #steps: number
  readonly #asyncModel: boolean
  readonly #onCall: () => void | Promise<void>

  constructor(base: number, steps: number, asyncModel: boolean, onCall?: () => void | Promise<void>) {
    super({})
    this.#base = base
    this.#steps = steps
    this.#asyncModel = asyncModel
    this.#onCall = onCall ?? (() => {
      counters.modelCalls++
    })
  }

  _llmType(): string {
    return "step-model"
  }

  override bindTools(_tools: BindToolsInput[], kwargs?: Partial<BaseChatModelCallOptions>) {
    return this.withConfig({ ...kwargs })
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    if (this.#asyncModel) await new Promise<void>((resolve) => setImmediate(resolve))
    await this.#onCall()
    // Each step adds two messages (the AI message with its tool call, the tool's result).
    const step = ((messages.length - this.#base) >> 1) + 1
    let message: AIMessage
    if (step < this.#steps) {
      message = new AIMessage({ content: "", tool_calls: [{ id: `call-${step}`, name: "echo", args: { i: step }, type: "tool_call" }] })
    } else if (step === this.#steps) {
      message = new AIMessage({ content: "done" })
    } else {
      throw new Error(`the fake model has no answer for ${messages.length} messages`)
    }
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] }
  }
}

/** H alternating human/AI messages, then "go"; ids set, so that LangGraph's reducer does not assign them on the first run. */
export const seedOf = (H: number): ReadonlyArray<BaseMessage> => {
  const out: Array<BaseMessage> = []
  for (let i = 0; i < H; i++) {
    out.push(i % 2 === 0 ? new HumanMessage({ content: `question ${i}`, id: `seed-${i}` }) : new AIMessage({ content: `answer ${i}`, id: `seed-${i}` }))
  }
  out.push(new HumanMessage({ content: "go", id: `seed-${H}` }))
  return Object.freeze(out)
}

const observerMiddleware = (index: number) =>
  createMiddleware({
    name: `observer-${index}`,
    beforeAgent: (state) => {
      observe(state.messages)
    },
    beforeModel: (state) => {
      observe(state.messages)
    },
    wrapModelCall: (request, handler) => {
      observe(request.messages)
      return handler(request)
    },
    afterModel: (state) => {
      observe(state.messages)
    },
    wrapToolCall: (request, handler) => {
      observe(request.state.messages)
      return handler(request)
    },
    afterAgent: (state) => {
      observe(state.messages)
    },
  })

const prepare = async (workload: Workload): Promise<Prepared> => {
  const { steps, K, H, asyncModel } = workload
  const seed = seedOf(H)

  const echo = tool(
    ({ i }) => {
      counters.toolCalls++
      return i
    },
    { name: "echo", description: "Echoes i", schema: z.object({ i: z.number() }) },
  )

  const agent = createAgent({
    model: new StepModel(seed.length, steps, asyncModel),
    tools: [echo],
    middleware: Array.from({ length: K }, (_, i) => observerMiddleware(i)),
  })

  // Each middleware hook is a graph node of its own: per step, K beforeModel nodes, the
  // model node, K afterModel nodes, the tools node; plus 2K agent-level nodes per run.
  const recursionLimit = 2 * (steps + 1) * (2 * K + 2) + 2 * K + 100

  return {
    run: async () => {
      const result = await agent.invoke({ messages: [...seed] }, { recursionLimit })
      const last = result.messages.at(-1)
      return last === undefined ? "" : last.text
    },
  }
}

export const system: System = {
  name: "langchain",
  version: versionOf("langchain"),
  hookPoints,
  firingsPerRun,
  counters,
  prepare,
}
