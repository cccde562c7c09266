/**
 * The Vercel AI SDK (`ai` 7): a `ToolLoopAgent` (what the SDK's "Building Agents" docs
 * recommend for an agent loop; `generate()` runs `generateText` underneath) over
 * `MockLanguageModelV4` from `ai/test`, an `echo` tool with a zod input schema, and
 * `stopWhen: isStepCount(S)`. Telemetry is switched off (`telemetry: { isEnabled: false }`),
 * nothing else.
 *
 * Hook points: the loop-control hook `prepareStep` and every lifecycle callback of
 * `generateText` that fires on a successful run (docs: "Lifecycle Callbacks"). Each takes
 * one function, so each gets one callback that calls the K observers in turn; with K = 0
 * no callback is registered at all. Left out: the deprecated aliases (`onStepFinish`,
 * `onFinish`, `experimental_onStart`, `experimental_onStepStart`), the error paths
 * (`onStepError`, `onError`, `onAbort`, `repairToolCall`: they never fire here), and
 * `prepareCall` (call-option templating, once per run, not part of the loop).
 */
import { isStepCount, tool, ToolLoopAgent, type ModelMessage } from "ai"
import { MockLanguageModelV4 } from "ai/test"
import { z } from "zod"
import type { Counters, Prepared, System, Workload } from "../System.js"
import { versionOf } from "../Version.js"

const counters: Counters = { modelCalls: 0, toolCalls: 0, hookCalls: 0 }

// Message counts the observers read, kept so that no observer body is dead code.
const seen = new Float64Array(1)

type Observer = (messages: ReadonlyArray<unknown>) => void

const observer = (): Observer => (messages) => {
  counters.hookCalls++
  seen[0] = (seen[0] as number) + messages.length
}

const hookPoints = [
  "prepareStep",
  "onStart",
  "onStepStart",
  "onLanguageModelCallStart",
  "onLanguageModelCallEnd",
  "onToolExecutionStart",
  "onToolExecutionEnd",
  "onStepEnd",
  "onEnd",
] as const

/**
 * Per run: `onStart` and `onEnd` once; `prepareStep`, `onStepStart`,
 * `onLanguageModelCallStart`, `onLanguageModelCallEnd` and `onStepEnd` once per step;
 * `onToolExecutionStart` and `onToolExecutionEnd` once per tool call (steps 1..S-1).
 */
const firingsPerRun = (steps: number): number => 2 + 5 * steps + 2 * (steps - 1)

/** H alternating user/assistant messages, then "go". */
const seedOf = (H: number): ReadonlyArray<ModelMessage> => {
  const out: Array<ModelMessage> = []
  for (let i = 0; i < H; i++) {
    out.push(i % 2 === 0 ? { role: "user", content: `question ${i}` } : { role: "assistant", content: `answer ${i}` })
  }
  out.push({ role: "user", content: "go" })
  return Object.freeze(out)
}

const usage = () => ({
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
})

/** The mock model's answer at step `step` of `steps` (1-based): echo {i: step}, or "done" at the last. */
export const answerFor = (step: number, steps: number) =>
  step < steps
    ? {
        content: [{ type: "tool-call" as const, toolCallId: `call-${step}`, toolName: "echo", input: JSON.stringify({ i: step }) }],
        finishReason: { unified: "tool-calls" as const, raw: undefined },
        usage: usage(),
        warnings: [],
      }
    : { content: [{ type: "text" as const, text: "done" }], finishReason: { unified: "stop" as const, raw: undefined }, usage: usage(), warnings: [] }

const prepare = async (workload: Workload): Promise<Prepared> => {
  const { steps, K, H, asyncModel } = workload
  const seed = seedOf(H)
  // Each step adds two messages (the assistant's tool call, the tool's result), so the
  // step a request belongs to follows from the length of its prompt: no per-run state.
  const base = seed.length

  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async (options) => {
      // The mock records every call's options for assertions; drop them, or thousands of
      // runs would keep every prompt alive.
      model.doGenerateCalls.length = 0
      if (asyncModel) await new Promise<void>((resolve) => setImmediate(resolve))
      counters.modelCalls++
      const step = ((options.prompt.length - base) >> 1) + 1
      if (step <= steps) return answerFor(step, steps)
      throw new Error(`the fake model has no answer for a prompt of ${options.prompt.length} messages`)
    },
  })

  const echo = tool({
    description: "Echoes i",
    inputSchema: z.object({ i: z.number() }),
    execute: ({ i }) => {
      counters.toolCalls++
      return i
    },
  })

  const observers = Array.from({ length: K }, observer)
  const notify = (messages: ReadonlyArray<unknown>): void => {
    for (const o of observers) o(messages)
  }
  const hooks =
    K === 0
      ? {}
      : {
          prepareStep: ({ messages }: { messages: ReadonlyArray<unknown> }) => {
            notify(messages)
            return {}
          },
          onStart: (e: { messages: ReadonlyArray<unknown> }) => notify(e.messages),
          onStepStart: (e: { messages: ReadonlyArray<unknown> }) => notify(e.messages),
          onLanguageModelCallStart: (e: { messages: ReadonlyArray<unknown> }) => notify(e.messages),
          onLanguageModelCallEnd: (e: { content: ReadonlyArray<unknown> }) => notify(e.content),
          onToolExecutionStart: (e: { messages: ReadonlyArray<unknown> }) => notify(e.messages),
          onToolExecutionEnd: (e: { messages: ReadonlyArray<unknown> }) => notify(e.messages),
          onStepEnd: (e: { response: { messages: ReadonlyArray<unknown> } }) => notify(e.response.messages),
          onEnd: (e: { responseMessages: ReadonlyArray<unknown> }) => notify(e.responseMessages),
        }

  const agent = new ToolLoopAgent({
    model,
    tools: { echo },
    stopWhen: isStepCount(steps),
    telemetry: { isEnabled: false },
    ...hooks,
  })

  const messages = seed as Array<ModelMessage>
  return {
    run: async () => (await agent.generate({ messages })).text,
  }
}

export const system: System = {
  name: "ai",
  version: versionOf("ai"),
  hookPoints,
  firingsPerRun,
  counters,
  prepare,
}
