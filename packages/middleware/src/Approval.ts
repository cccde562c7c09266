/**
 * Human approval that suspends the run: a BeforeToolUse hook that, for the calls that
 * need a person's decision (named tools, or a predicate), suspends the run instead of
 * waiting in memory. The run ends `suspended` with the calls, a reason and a payload in
 * `state.execution.pendingCalls`; `agent.resume(runIdOrState, decisions)` goes on.
 * A call another hook blocked stays blocked (fail-closed). Policies decide on the
 * arguments as the call's tool decodes them (`Tool.argumentsOf`), never on the model's
 * raw JSON: `forTool` gives them typed, and `decode` gives them to `when`, `reason` and
 * `payload` (`call.decoded`).
 *
 * @since 0.1.0
 */
import { AgentError, HookContext, HookTrigger, HookTriggers, Json, type AgentState, type Hook, type ToolCall } from "@hookline/core"
import { Tool, UseHook, type AgentBuilder } from "@hookline/agent"
import { Duration } from "effect"
import * as Bounded from "./internal/bounded.js"

/**
 * A call as `when`, `reason` and `payload` get it: the call, and its arguments as its
 * tool decodes them (`Tool.argumentsOf`) when the tool is among `decode`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Call extends ToolCall {
  /** The decoded arguments; `undefined` for a tool not in `decode`. */
  readonly decoded: unknown
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<C = unknown> {
  /** The tools whose every call needs approval. */
  readonly tools?: ReadonlyArray<string> | undefined
  /** Or: which calls need approval. */
  readonly when?: ((toolCall: Call, state: AgentState, ctx: HookContext<C>) => boolean) | undefined
  /** Why (shown to the person); default "needs approval". */
  readonly reason?: ((toolCall: Call) => string) | string | undefined
  /** What to show the person; default the call's arguments. */
  readonly payload?: ((toolCall: Call) => Json.JsonValue) | undefined
  /**
   * How long an approval holds (`"2 hours"`, a number of ms), from when the run
   * suspends; the next resume after it rejects the call ("the approval expired at …").
   * Default: it never expires.
   */
  readonly expiresIn?: Duration.Input | undefined
  /** Registration priority; default `defaultPriority`. */
  readonly priority?: number | undefined
  /** Registration name; default `defaultName`. */
  readonly name?: string | undefined
  /**
   * The agent's tools whose calls `when`, `reason` and `payload` get decoded
   * (`call.decoded`). A call of one of them whose arguments do not decode is not asked
   * about: it does not run (the model gets `ToolArgumentsInvalid`).
   */
  readonly decode?: ReadonlyArray<Tool.Tool<any, any>> | undefined
}

/**
 * After permission hooks (which block: a blocked call is not asked about).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPriority = -10

/**
 * @since 0.1.0
 * @category constants
 */
export const defaultName = "approval:suspend"

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

/**
 * The hook.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C = unknown>(options: Options<C>): Hook<C> => madeOf(options).hook

// The hook and the options as read once (`known`): the capability takes its `name` and
// `priority` from that copy (a getter may answer otherwise the second time).
const madeOf = <C>(options: Options<C>): { readonly hook: Hook<C>; readonly read: Options<C> } => {
  const read = known(options, optionKeys)
  const { tools, when, reason, payload, expiresIn, decode } = read
  if (tools === undefined && when === undefined) invalid("", "expected tools or when")
  // No hole, at most maxItems, each a name (internal/bounded.ts).
  const names = new Set(tools === undefined ? [] : Bounded.list("tools", tools, "tool names", (at, n) =>
    typeof n === "string" ? Bounded.text(at, n) : invalid(at, `expected a tool name, got ${Json.excerpt(n, 60)}`)))
  if (when !== undefined && typeof when !== "function") invalid("when", "expected a function")
  checkReasonAndPayload(reason, payload)
  const expiry = expiryOf(expiresIn)
  const decoders = decodersOf(decode)
  const hook: Hook<C> = (ctx) => {
    const toolCall = ctx.toolCall
    if (toolCall === undefined) return ctx
    const decoded = decodedOf(decoders, toolCall)
    if (decoded._tag === "Async") return askFailClosed(ctx, toolCall, reason, expiry)
    const call: Call = Object.freeze({ ...toolCall, decoded: decoded._tag === "Valid" ? decoded.args : undefined })
    // Arguments that do not decode: the call will not run, so `when` is not asked.
    const needs = names.has(call.name) || (when !== undefined && decoded._tag === "Valid" && when(call, ctx.state, ctx))
    if (!needs) return ctx
    const why = typeof reason === "function" ? reason(call) : reason ?? "needs approval"
    return HookContext.suspend(ctx, why, payload === undefined ? call.arguments : payload(call), expiry)
  }
  return { hook, read }
}

const optionKeys: ReadonlyArray<string> = ["tools", "when", "reason", "payload", "expiresIn", "priority", "name", "decode"]
const forToolKeys: ReadonlyArray<string> = ["when", "reason", "payload", "expiresIn", "priority", "name"]

// The options as an object with only known keys: a typo (`expireIn`) would silently keep
// the default (an approval that never expires), as the other built-ins refuse.
const known = <A extends object>(options: A, keys: ReadonlyArray<string>): A =>
  Bounded.options("", options, keys, "the options of an approval (an object)") as A

// Checked when the hook is made, not when a call is asked about: a payload that is not a
// function threw at every call, a reason that is not a string went into the state.
const checkReasonAndPayload = (reason: unknown, payload: unknown): void => {
  if (typeof reason === "string") Bounded.text("reason", reason)
  else if (reason !== undefined && typeof reason !== "function") invalid("reason", `expected a string or a function, got ${Json.excerpt(reason, 60)}`)
  if (payload !== undefined && typeof payload !== "function") invalid("payload", `expected a function, got ${Json.excerpt(payload, 60)}`)
}

// A finite duration >= 0, checked when the hook is made.
// Effect reads any object as a duration object and skips the keys it does not know: a
// misspelt unit ({ hour: 2 }), a RegExp or a Date was 0 ms (an approval that expired at
// once), a string unit was coerced. A plain object of known units, each a finite number
// >= 0, a Duration, a number, a string, or a [seconds, nanos] pair are read.
const units: ReadonlyArray<string> = ["weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds"]
const objectProblem = (input: object): string | undefined => {
  if (Duration.isDuration(input) || Array.isArray(input)) return undefined
  const proto: unknown = Object.getPrototypeOf(input)
  if (proto !== Object.prototype && proto !== null) return "a duration object holds units ({ hours: 2 }), not a class instance"
  for (const key of Object.keys(input)) {
    if (!units.includes(key)) return `unknown unit ${Json.excerpt(key, 60)}: expected ${units.join(", ")}`
    const n: unknown = (input as Record<string, unknown>)[key]
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) return `${key}: expected a finite number >= 0, got ${Json.excerpt(n, 60)}`
  }
  return undefined
}

const durationOf = (input: Duration.Input): Duration.Duration => {
  let ms = NaN
  try {
    const problem = typeof input === "object" && input !== null ? objectProblem(input) : undefined
    if (problem !== undefined) return invalid("expiresIn", problem)
    const parsed = typeof input === "number" && !(input >= 0) ? undefined : Duration.fromInput(input)
    ms = parsed === undefined || parsed._tag === "None" ? NaN : Duration.toMillis(parsed.value)
  } catch (cause) {
    // A value whose reading throws (a Proxy's trap) is not a duration.
    if (cause instanceof AgentError.HooklineError) throw cause
  }
  return Number.isFinite(ms) && ms >= 0
    ? Duration.millis(ms)
    : invalid("expiresIn", `expected a finite duration >= 0 ("2 hours", a number of ms), got ${Json.excerpt(input, 60)}`)
}

/**
 * The hook as a capability, at BeforeToolUse.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseApproval: {
  <C = unknown>(options: Options<C>): AgentBuilder.Capability<C>
  /** `forTool` as a capability: `UseApproval.forTool(issueRefund, { when: (args) => args.amount > 100 })`. */
  readonly forTool: <A, C = unknown>(tool: Tool.Tool<A, any>, options?: ForToolOptions<NoInfer<A>, C>) => AgentBuilder.Capability<C>
} = Object.assign(
  <C = unknown>(options: Options<C>): AgentBuilder.Capability<C> => {
    const { hook, read } = madeOf(options)
    return UseHook(hook, {
      triggers: HookTriggers.of(HookTrigger.BeforeToolUse),
      priority: read.priority ?? defaultPriority,
      name: read.name ?? defaultName,
    })
  },
  {
    forTool: <A, C = unknown>(tool: Tool.Tool<A, any>, options: ForToolOptions<NoInfer<A>, C> = {}): AgentBuilder.Capability<C> => {
      const { hook, read, toolName } = forToolMadeOf(tool, options)
      return UseHook(hook, {
        triggers: HookTriggers.of(HookTrigger.BeforeToolUse),
        priority: read.priority ?? defaultPriority,
        name: read.name ?? `${defaultName}:${toolName}`,
      })
    },
  },
)

// --- Decoded arguments (issue 26): policies read what the tool would get. ---

const decodersOf = (tools: Options["decode"]): ReadonlyMap<string, Tool.Tool<unknown, unknown>> => {
  if (tools === undefined) return new Map()
  const checked = Bounded.list("decode", tools, "the agent's tools (Tool.make)", (at, tool) => toolOf<unknown>(at, tool))
  return new Map(checked.map((tool) => [tool.name, tool]))
}

// The caller's tool read once, field by field, and checked on the copy as `Tool.isTool`
// checks a tool (its name as a name of `tools` is). The hook matches and decodes with the
// copy: a getter `name` that answered "refund" to the check, then another name on each
// call, let every refund run unasked. A validator read once keeps `Tool.argumentsOf`'s
// memo shared with the agent's own tool (it is keyed by the validator).
const toolOf = <A>(at: string, u: unknown): Tool.Tool<A, any> => {
  let copy: Record<string, unknown>
  try {
    if (typeof u !== "object" || u === null) return invalid(at, "expected a tool (Tool.make)")
    const { _tag, name, description, jsonSchema, timeout, maxOutputLength, validate, execute, run } = u as Record<string, unknown>
    copy = { _tag, name, description, jsonSchema, timeout, maxOutputLength, validate, execute, run }
  } catch (cause) {
    // A tool whose reading throws (a Proxy's trap, a getter) is not one.
    return invalid(at, `reading it threw: ${AgentError.messageOf(cause)}`)
  }
  if (!Tool.isTool(copy)) return invalid(at, "expected a tool (Tool.make)")
  Bounded.text(`${at}.name`, copy.name)
  return Object.freeze(copy) as unknown as Tool.Tool<A, any>
}

/** The arguments a tool would get, or why there are none. */
type Decoded<A> = { readonly _tag: "Valid"; readonly args: A } | { readonly _tag: "Invalid" } | { readonly _tag: "Async" }

const decodedBy = <A>(tool: Tool.Tool<A, any>, toolCall: ToolCall): Decoded<A> => {
  try {
    const args = Tool.argumentsOf(tool, toolCall)
    return args === undefined ? { _tag: "Invalid" } : { _tag: "Valid", args }
  } catch {
    // A validator that answers asynchronously: a pure hook cannot wait for it.
    return { _tag: "Async" }
  }
}

const unknownTool: Decoded<undefined> = Object.freeze({ _tag: "Valid", args: undefined })

// The call's decoded arguments; a tool not in `decode` gives `undefined` arguments.
const decodedOf = (decoders: ReadonlyMap<string, Tool.Tool<unknown, unknown>>, toolCall: ToolCall): Decoded<unknown> => {
  const tool = decoders.get(toolCall.name)
  return tool === undefined ? unknownTool : decodedBy(tool, toolCall)
}

// Arguments a pure hook cannot read now (an asynchronous validator): a person decides.
const askFailClosed = <C>(ctx: HookContext<C>, toolCall: ToolCall, reason: unknown, expiry: Expiry): HookContext =>
  HookContext.suspend(ctx, typeof reason === "string" ? reason : "needs approval", toolCall.arguments, expiry)

// How long an approval holds, as `HookContext.suspend` takes it (none: it never expires).
type Expiry = { readonly expiresIn: Duration.Duration } | undefined
const expiryOf = (expiresIn: Duration.Input | undefined): Expiry => expiresIn === undefined ? undefined : { expiresIn: durationOf(expiresIn) }

/**
 * The options of `forTool`: the policy over one tool's decoded arguments.
 *
 * @since 0.1.0
 * @category models
 */
export interface ForToolOptions<A, C = unknown> {
  /** Which calls need approval, from the arguments as the tool decodes them; default every call. */
  readonly when?: ((args: A, call: ToolCall, ctx: HookContext<C>) => boolean) | undefined
  /** Why (shown to the person); default "needs approval". */
  readonly reason?: ((args: A, call: ToolCall) => string) | string | undefined
  /** What to show the person; default the call's arguments as the model sent them. */
  readonly payload?: ((args: A, call: ToolCall) => Json.JsonValue) | undefined
  /** How long an approval holds, from when the run suspends (as `Options.expiresIn`); default it never expires. */
  readonly expiresIn?: Duration.Input | undefined
  /** Registration priority; default `defaultPriority`. */
  readonly priority?: number | undefined
  /** Registration name; default `approval:suspend:<tool name>`. */
  readonly name?: string | undefined
}

/**
 * The approval hook for one tool, deciding on its arguments as the tool decodes them
 * (`Tool.argumentsOf`: coercions, transforms and defaults applied), typed from its
 * schema: `forTool(issueRefund, { when: (args) => args.amount > 100 })` asks about a
 * refund of `"500"` when the tool coerces the amount. A call whose arguments do not
 * decode is not asked about: it does not run. A tool whose validator answers
 * asynchronously is asked about on every call (fail-closed), since a pure hook cannot
 * wait for it. An edited call (by a hook before this one, or a person's
 * `Decision.edit`) is decoded again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const forTool = <A, C = unknown>(tool: Tool.Tool<A, any>, options: ForToolOptions<NoInfer<A>, C> = {}): Hook<C> =>
  forToolMadeOf(tool, options).hook

// As `madeOf`: the hook, the options as read once, and the tool's name as read once.
const forToolMadeOf = <A, C>(
  given: Tool.Tool<A, any>,
  options: ForToolOptions<NoInfer<A>, C>,
): { readonly hook: Hook<C>; readonly read: ForToolOptions<NoInfer<A>, C>; readonly toolName: string } => {
  const tool = toolOf<A>("tool", given)
  const read = known(options, forToolKeys)
  const { when, reason, payload, expiresIn } = read
  if (when !== undefined && typeof when !== "function") invalid("when", "expected a function")
  checkReasonAndPayload(reason, payload)
  const expiry = expiryOf(expiresIn)
  const hook: Hook<C> = (ctx) => {
    const call = ctx.toolCall
    if (call === undefined || call.name !== tool.name) return ctx
    const decoded = decodedBy(tool, call)
    if (decoded._tag === "Async") return askFailClosed(ctx, call, reason, expiry)
    if (decoded._tag === "Invalid") return ctx
    const args = decoded.args
    if (when !== undefined && !when(args, call, ctx)) return ctx
    const why = typeof reason === "function" ? reason(args, call) : reason ?? "needs approval"
    return HookContext.suspend(ctx, why, payload === undefined ? call.arguments : payload(args, call), expiry)
  }
  return { hook, read, toolName: tool.name }
}
