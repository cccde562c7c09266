/**
 * Structured output: the final answer must be JSON that decodes with a schema (an io-ts
 * codec or any Standard Schema). The model is asked for JSON with the schema (the
 * request's `responseFormat`, unless one is set); an answer that does not decode is fed
 * back to the model as a new user message naming the path and the problem, and the run
 * goes on, up to `retries` times; after that the run stops (a hard stop) and the
 * typed `OutputInvalid` record is in the state. The decoded value is read back, typed,
 * with `output.value(final)`.
 *
 * @since 0.1.0
 */
import { type AgentBuilder, Tool, UseHook } from "@hookline/agent"
import {
  AgentState,
  Hook,
  HookContext,
  HookTrigger,
  HookTriggers,
  Json,
  StopReason,
  StopSignal,
  type JsonValue,
} from "@hookline/core"
import { Effect, Exit } from "effect"
import * as O from "./internal/builtinOptions.js"

/**
 * Why the final answer was refused: `path` of the first bad value (`""` for the root,
 * or for text that is not JSON) and what was wrong; `attempts` answers were tried.
 *
 * @since 0.1.0
 * @category errors
 */
export interface OutputInvalid {
  readonly _tag: "OutputInvalid"
  readonly path: string
  readonly message: string
  readonly attempts: number
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** How many times a bad answer is fed back before the run stops; default 2. */
  readonly retries?: number | undefined
}

/**
 * A structured output: its capability, and the typed value of a final state.
 *
 * @since 0.1.0
 * @category models
 */
export interface Output<A> {
  readonly use: AgentBuilder.Capability
  /** The decoded answer of a run that ended with a valid one, else `undefined`. */
  readonly value: (state: AgentState.AgentState) => Promise<A | undefined>
  /** Why the answer was refused, if it was. */
  readonly error: (state: AgentState.AgentState) => OutputInvalid | undefined
}

/** @since 0.1.0 @category constants */
export const name = "output:structured"

/** The reason the run stops with: hard, above StopRequested (700), below ErrorForbade (800). @since 0.1.0 @category constants */
export const stopReason: StopReason.Custom = StopReason.custom({ name: "OutputInvalid", priority: 750, kind: "hard" })

/** The longest answer decoded, in characters. @since 0.1.0 @category constants */
export const maxAnswerLength = 1_000_000

type Stored =
  | { readonly status: "valid"; readonly json: JsonValue }
  | { readonly status: "retrying"; readonly attempts: number }
  | { readonly status: "invalid"; readonly error: OutputInvalid }

const storedOf = (state: AgentState.AgentState): Stored | undefined => {
  const u = state.metadata[name]
  return typeof u === "object" && u !== null && !Array.isArray(u) && typeof (u as { status?: unknown }).status === "string"
    ? u as unknown as Stored
    : undefined
}

// The answer's JSON: the text itself, or the inside of one ```json fence around it.
const parse = (text: string): { readonly json: JsonValue } | { readonly problem: string } => {
  if (text.length > maxAnswerLength) return { problem: `the answer has ${text.length} characters (limit ${maxAnswerLength})` }
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text)
  try {
    return { json: JSON.parse(fenced === null ? text : fenced[1] ?? "") as JsonValue }
  } catch {
    return { problem: `the answer is not JSON: ${Json.excerpt(text, 200)}` }
  }
}

const lastAnswer = (state: AgentState.AgentState): string | undefined => {
  const last = state.context.messages.last()
  return last?.role === "assistant" && last.toolCalls.length === 0 ? last.content : undefined
}

/**
 * A structured output for `schema`. Throws `InvalidConfiguration` for a schema that is
 * neither an io-ts codec nor a Standard Schema, one whose JSON Schema cannot be derived
 * or is not an object schema (providers take objects), or bad options.
 *
 * @example
 * ```ts
 * const answer = Output.make(t.type({ city: t.string, population: t.number }))
 * const final = await AgentBuilder.make(UseDriver(driver), answer.use).run("Largest city?")
 * const value = await answer.value(final) // { city: string; population: number } | undefined
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A>(schema: Tool.Parameters<A>, options: Options = {}): Output<A> => {
  const o = O.record("options", options, ["retries"])
  const retries = o["retries"] === undefined ? 2 : O.count("options.retries", o["retries"])
  // A tool's checks derive the JSON Schema and the validator, with the same rules.
  const probe = Tool.make<A>({ name: "output", parameters: schema, execute: () => null })
  const responseFormat = Object.freeze({ type: "json" as const, schema: probe.jsonSchema, name: "output" })

  const decode = (json: JsonValue): Effect.Effect<A, { readonly path: string; readonly message: string }> => probe.validate(json)

  const hook = Hook.effect((ctx) => {
    if (ctx.trigger === HookTrigger.BeforeExecution) {
      return Effect.succeed(
        ctx.state.metadata[name] === undefined ? ctx : HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: null })),
      )
    }
    if (ctx.trigger === HookTrigger.BeforeInference) {
      const request = ctx.request
      return Effect.succeed(
        request === undefined || request.responseFormat !== undefined ? ctx : HookContext.withRequest(ctx, { ...request, responseFormat }),
      )
    }
    // OnStop: only a natural end is a final answer.
    const highest = StopSignal.highest(ctx.state.execution.stopSignals)
    const text = lastAnswer(ctx.state)
    if (ctx.trigger !== HookTrigger.OnStop || highest?.reason !== StopReason.Completed || text === undefined) return Effect.succeed(ctx)
    const before = storedOf(ctx.state)
    const attempts = (before?.status === "retrying" ? before.attempts : 0) + 1
    const parsed = parse(text)
    const checked: Effect.Effect<JsonValue, { readonly path: string; readonly message: string }> = "json" in parsed
      ? Effect.as(decode(parsed.json), parsed.json)
      : Effect.fail({ path: "", message: parsed.problem })
    return Effect.match(checked, {
      onSuccess: (json) => HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: { status: "valid", json } })),
      onFailure: ({ path, message }) => {
        if (attempts <= retries) {
          const retrying = HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: { status: "retrying", attempts } }))
          const where = path === "" ? "" : ` at ${path}`
          return HookContext.requestContinuation(
            retrying,
            `Your answer does not match the required format${where}: ${message}. Answer again with only the JSON.`,
          )
        }
        const error: OutputInvalid = { _tag: "OutputInvalid", path, message, attempts }
        const invalid = HookContext.withState(ctx, AgentState.withMetadata(ctx.state, { [name]: { status: "invalid", error: { ...error } } }))
        return HookContext.withStopSignal(
          invalid,
          StopSignal.make(stopReason, `OutputInvalid${path === "" ? "" : ` at ${path}`}: ${message}`, name),
        )
      },
    })
  })

  return Object.freeze<Output<A>>({
    use: UseHook(hook, {
      triggers: HookTriggers.of(HookTrigger.BeforeExecution, HookTrigger.BeforeInference, HookTrigger.OnStop),
      priority: -100,
      name,
    }),
    value: async (state) => {
      const stored = storedOf(state)
      if (stored?.status !== "valid") return undefined
      const exit = await Effect.runPromiseExit(decode(stored.json))
      return Exit.isSuccess(exit) ? exit.value : undefined
    },
    error: (state) => {
      const stored = storedOf(state)
      return stored?.status === "invalid" ? stored.error : undefined
    },
  })
}

/**
 * What `UseOutput` gives: a capability to pass to `AgentBuilder.make` that also reads
 * the typed answer (`value`) and the refusal (`error`) of a final state.
 *
 * @since 0.1.0
 * @category models
 */
export type UseOutput<A> = AgentBuilder.Capability & Pick<Output<A>, "value" | "error">

/**
 * Structured output as a capability, like the other built-ins (`UseX(...)`): the same
 * hook as `Output.make(schema, options).use`, and the value to read the answer with.
 * Throws `InvalidConfiguration` as `make` does.
 *
 * @example
 * ```ts
 * const answer = UseOutput(t.type({ city: t.string, population: t.number }))
 * const final = await AgentBuilder.make(UseDriver(driver), answer).run("Largest city?")
 * const value = await answer.value(final) // { city: string; population: number } | undefined
 * ```
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseOutput = <A>(schema: Tool.Parameters<A>, options: Options = {}): UseOutput<A> => {
  const output = make(schema, options)
  return Object.freeze({ ...output.use, value: output.value, error: output.error })
}
