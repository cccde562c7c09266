import { describe, expect, it } from "vitest"
import { AgentError, AgentState, Guards, HookContext, HookStack, InferenceResponse, Step, Usage, type Hook } from "@hookline/core"

const withSteps = (n: number, options: { finishReason?: InferenceResponse.FinishReason; tokens?: number } = {}) => {
  let state = AgentState.withStatus(AgentState.make({ id: "s" }), "running", 1_000)
  for (let i = 0; i < n; i++) {
    state = AgentState.appendStep(
      state,
      Step.make({
        index: i,
        startedAt: 1_000,
        usage: Usage.make(options.tokens ?? 0, 0),
        response: InferenceResponse.make({ text: "x", finishReason: options.finishReason ?? "tool-calls" }),
      }),
    )
  }
  return state
}
const at = (trigger: "BeforeStep" | "AfterStep", state: AgentState, createdAt = 1_000) =>
  HookContext.make({ trigger, state, createdAt })
const signals = (ctx: HookContext) => ctx.state.execution.stopSignals.map((s) => [s.reason, s.source, s.message])

describe("Guards", () => {
  describe("stepsLimit", () => {
    it("lets the step run while fewer than maxSteps steps have run", () => {
      const ctx = at("BeforeStep", withSteps(2))
      expect(Guards.stepsLimit(3)(ctx)).toBe(ctx)
    })

    it("adds StepsLimitReached once maxSteps steps have run", () => {
      expect(signals(Guards.stepsLimit(3)(at("BeforeStep", withSteps(3))))).toEqual([
        ["StepsLimitReached", "guard:steps_limit", "Step limit reached: 3/3"],
      ])
    })
  })

  describe("tokenLimit", () => {
    it("adds TokenLimitReached once input plus output tokens reach the limit", () => {
      const state = withSteps(2, { tokens: 50 })
      expect(Guards.tokenLimit(101)(at("BeforeStep", state)).state).toBe(state)
      expect(signals(Guards.tokenLimit(100)(at("BeforeStep", state)))).toEqual([
        ["TokenLimitReached", "guard:token_limit", "Token limit reached: 100/100"],
      ])
    })
  })

  describe("timeLimit", () => {
    it("reads the context's clock reading against the run's start", () => {
      const state = withSteps(0)
      const guard = Guards.timeLimit("2 seconds")
      expect(guard(at("BeforeStep", state, 2_999)).state).toBe(state)
      expect(signals(guard(at("BeforeStep", state, 3_000)))).toEqual([
        ["TimeLimitReached", "guard:time_limit", "Time limit reached: 2000 ms/2000 ms"],
      ])
    })

    it("counts from this run call's start (runningSince), not the run's first start", () => {
      // Started at 1,000, suspended, resumed a day later.
      const resumed = AgentState.withStatus(AgentState.withStatus(withSteps(1), "suspended"), "running", 86_401_000)
      expect(resumed.execution.startedAt).toBe(1_000)
      const guard = Guards.timeLimit("2 seconds")
      expect(guard(at("BeforeStep", resumed, 86_402_999)).state).toBe(resumed)
      expect(signals(guard(at("BeforeStep", resumed, 86_403_000)))).toEqual([
        ["TimeLimitReached", "guard:time_limit", "Time limit reached: 2000 ms/2000 ms"],
      ])
    })

    it("counts from the run's start in a state written before runningSince", () => {
      const old = AgentState.withExecution(withSteps(0), { ...withSteps(0).execution, runningSince: undefined })
      expect(signals(Guards.timeLimit(10)(at("BeforeStep", old, 1_010)))[0]?.[0]).toBe("TimeLimitReached")
    })

    it("takes a number as milliseconds", () => {
      expect(signals(Guards.timeLimit(10)(at("BeforeStep", withSteps(0), 1_010)))[0]?.[0]).toBe("TimeLimitReached")
    })

    it("does nothing before the run has started", () => {
      const ctx = at("BeforeStep", AgentState.make({ id: "s" }), 9e12)
      expect(Guards.timeLimit(1)(ctx)).toBe(ctx)
    })
  })

  describe("finishReason", () => {
    it("adds FinishReasonReceived after a step that finished with a listed reason", () => {
      expect(signals(Guards.finishReason(["length"])(at("AfterStep", withSteps(1, { finishReason: "length" }))))).toEqual([
        ["FinishReasonReceived", "guard:finish_reason", "Finish reason received: length"],
      ])
    })

    it("ignores other finish reasons and is off when the list is empty", () => {
      const ctx = at("AfterStep", withSteps(1, { finishReason: "stop" }))
      expect(Guards.finishReason(["length"])(ctx)).toBe(ctx)
      expect(Guards.finishReason([])(ctx)).toBe(ctx)
    })
  })

  describe("fired guards", () => {
    it("keep their signal and return the same context when run again", () => {
      const guards: ReadonlyArray<Hook> = [Guards.stepsLimit(1), Guards.tokenLimit(1), Guards.timeLimit(1)]
      for (const guard of guards) {
        const fired = guard(at("BeforeStep", withSteps(3, { tokens: 5 }), 5_000))
        expect(fired.state.execution.stopSignals).toHaveLength(1)
        expect(guard(fired)).toBe(fired)
      }
    })
  })

  describe("useGuards", () => {
    it("registers the four guards with the design's names, triggers and priorities", () => {
      const stack = Guards.useGuards({ finishReasons: ["length"] })
      expect(HookStack.explain(stack)).toEqual([
        {
          trigger: "BeforeStep",
          hooks: ["guard:steps_limit", "guard:token_limit", "guard:time_limit"].map((name) => ({
            name,
            priority: 200,
            onError: "fail",
            effectful: false,
            observer: false,
          })),
        },
        { trigger: "AfterStep", hooks: [{ name: "guard:finish_reason", priority: -200, onError: "fail", effectful: false, observer: false }] },
      ])
    })

    it("leaves the finish reason guard out by default", () => {
      expect(HookStack.order(Guards.useGuards(), "AfterStep")).toEqual([])
    })

    it("applies the defaults: 20 steps, 32768 tokens, 300 seconds", () => {
      const stack = Guards.useGuards()
      expect(HookStack.run(stack, at("BeforeStep", withSteps(19))).state.execution.stopSignals).toEqual([])
      expect(signals(HookStack.run(stack, at("BeforeStep", withSteps(20))))[0]?.[0]).toBe("StepsLimitReached")
      expect(signals(HookStack.run(stack, at("BeforeStep", withSteps(1, { tokens: 32_768 }))))[0]?.[0]).toBe("TokenLimitReached")
      expect(signals(HookStack.run(stack, at("BeforeStep", withSteps(0), 1_000 + 300_000)))[0]?.[0]).toBe("TimeLimitReached")
      expect(HookStack.run(stack, at("BeforeStep", withSteps(0), 1_000 + 299_999)).state.execution.stopSignals).toEqual([])
    })

    it("turns a guard off with null", () => {
      const stack = Guards.useGuards({ maxSteps: null, maxTokens: null, maxExecutionTime: null })
      expect(HookStack.explain(stack)).toEqual([])
    })

    it("rejects a negative limit with InvalidConfiguration naming the option", () => {
      expect(() => Guards.useGuards({ maxSteps: -1 })).toThrow(AgentError.HooklineError)
      try {
        Guards.useGuards({ maxTokens: Number.NaN })
      } catch (error) {
        expect((error as AgentError.HooklineError).error).toMatchObject({ _tag: "InvalidConfiguration", path: "maxTokens" })
      }
    })

    it("rejects an unknown option, naming it: a typo would leave the default silently", () => {
      let error: unknown
      try {
        Guards.useGuards({ maxStep: 5 } as Guards.GuardOptions)
      } catch (e) {
        error = (e as AgentError.HooklineError).error
      }
      expect(error).toMatchObject({ _tag: "InvalidConfiguration", path: "maxStep" })
      expect((error as AgentError.AgentError).message).toContain("expected one of maxSteps, maxTokens, maxExecutionTime, finishReasons")
    })

    it("rejects limits that would fire at once or never, naming the option and the value", () => {
      const errorOf = (options: Guards.GuardOptions) => {
        try {
          Guards.useGuards(options)
        } catch (error) {
          return (error as AgentError.HooklineError).error
        }
        return undefined
      }
      for (const maxSteps of [2.5, Number.POSITIVE_INFINITY, Number.NaN, -1]) {
        expect(errorOf({ maxSteps }), String(maxSteps)).toMatchObject({ _tag: "InvalidConfiguration", path: "maxSteps" })
      }
      expect(errorOf({ maxTokens: 1e400 })).toMatchObject({ _tag: "InvalidConfiguration", path: "maxTokens" })
      const durations: ReadonlyArray<unknown> = [{}, { minutes: "x" }, { bogus: 3 }, -5, Number.NaN, Number.POSITIVE_INFINITY, "Infinity", [-1, 0], "-3 seconds"]
      for (const maxExecutionTime of durations) {
        const error = errorOf({ maxExecutionTime: maxExecutionTime as "1 second" })
        expect(error, JSON.stringify(maxExecutionTime)).toMatchObject({ _tag: "InvalidConfiguration", path: "maxExecutionTime" })
      }
      expect(errorOf({ maxExecutionTime: { minutes: "x" } as never })?.message).toContain('got {"minutes":"x"}')
      // What a duration may be.
      for (const ok of [{ minutes: 5 }, 1_000, "5 minutes", [30, 0], 0]) {
        expect(errorOf({ maxExecutionTime: ok as "1 second" }), JSON.stringify(ok)).toBeUndefined()
      }
    })

    it("rejects an unknown finish reason and a duration it cannot read", () => {
      const pathOf = (f: () => unknown) => {
        try {
          f()
        } catch (error) {
          return (error as AgentError.HooklineError).error
        }
        return undefined
      }
      expect(pathOf(() => Guards.useGuards({ finishReasons: ["stop", "bored" as "stop"] })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "finishReasons[1]" })
      expect(pathOf(() => Guards.useGuards({ maxExecutionTime: "soon" as "1 second" })))
        .toMatchObject({ _tag: "InvalidConfiguration", path: "maxExecutionTime" })
    })
  })
})
