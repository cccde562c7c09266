/**
 * A tool the model may call: a name, a description, the JSON Schema of its arguments
 * (for the model), a validator for the untrusted arguments the model sends (an io-ts
 * codec or any Standard Schema: zod, valibot, Effect Schema), an `execute` function
 * (Effect, Promise or plain value) and an optional timeout. Tools are run by
 * `Tools.execute`, which never fails: every outcome is a `ToolExecution`.
 *
 * @since 0.1.0
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec"
import {
  AgentError,
  Codecs,
  Json,
  type AgentState,
  type InferenceRequest,
  type JsonObject,
  type ToolCall,
} from "@hookline/core"
import { Duration, Effect, Option, Result } from "effect"
import { dual } from "effect/Function"
import * as t from "io-ts"
import { fromCodec as schemaFromCodec } from "./internal/jsonSchema.js"
import * as Subagent from "./subagent/child.js"
import { decodeOnce, fromCodec as validatorFromCodec, fromStandardSchema, isStandardSchema, schemaProblem, type ArgumentsError } from "./internal/toolArguments.js"

/**
 * What a tool's `execute` gets besides its arguments. `signal` aborts when the run is
 * aborted or the tool times out; pass it on to `fetch` and the like. `runContext` is
 * the run's context (`agent.run(input, { context })`), typed `C`: annotate the
 * parameter (`(args, { runContext }: Tool.ToolContext<Ctx>) => …`) and the tool, and
 * an agent built with it, take that type.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolContext<C = unknown> {
  readonly toolCall: ToolCall
  readonly state: AgentState
  readonly signal: AbortSignal
  /**
   * `runId:toolCallId`, the same on every attempt of this call (a resumed run that
   * executes a call again gives the same key): pass it to the API the tool calls, so
   * that a side effect repeated after a crash is recognised there. In a subagent
   * (`Tool.fromAgent`) the run id is the child's, derived from its parent's run id and
   * call id (`<parentRunId>/<callId>`), so it is the same each time that call runs it.
   */
  readonly idempotencyKey: string
  /** The caller's per-run context; `undefined` when none was given. Never persisted. */
  readonly runContext: C
}

/**
 * A tool whose validated arguments are of type `A`. Made with `make`; run with
 * `Tools.execute`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tool<A = any, C = any> {
  readonly _tag: "Tool"
  readonly name: string
  readonly description: string
  /** The JSON Schema of the arguments, for the model; its top-level type is `"object"`. */
  readonly jsonSchema: JsonObject
  readonly timeout: Duration.Duration | undefined
  /**
   * The longest output this tool may give the model, in characters of the text the
   * model reads; `undefined` takes the limit of its `Tools` (see `Tools.make`).
   */
  readonly maxOutputLength: number | undefined
  /**
   * Validates untrusted arguments; a failure names the path of the first bad value.
   * Arguments that are not a JSON object (text that is not JSON, an array, `null`)
   * fail at the root with an excerpt of what was sent.
   */
  readonly validate: (input: unknown) => Effect.Effect<A, ArgumentsError>
  /** Runs the tool; whatever it throws, rejects or fails with is in the error channel. */
  readonly execute: (args: A, context: ToolContext<C>) => Effect.Effect<unknown, unknown>
  /**
   * The function as given: it returns a value, a Promise or an Effect. The loop calls
   * it directly when it can, so a tool that returns a plain value costs no Effect.
   */
  readonly run: (args: A, context: ToolContext<C>) => unknown
}

/**
 * An io-ts codec, or any Standard Schema (zod, valibot, or Effect Schema through
 * `Schema.toStandardSchemaV1`), whose output is the tool's arguments.
 *
 * @since 0.1.0
 * @category models
 */
export type Parameters<A> = t.Type<A, any, unknown> | StandardSchemaV1<unknown, A>

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<A, C = unknown> {
  /** What providers accept: 1 to 64 letters, digits, `_` or `-`. */
  readonly name: string
  readonly description?: string | undefined
  readonly parameters: Parameters<A>
  /**
   * The JSON Schema of the arguments; overrides the one derived from `parameters`.
   * Required when it cannot be derived (a Standard Schema without Standard JSON
   * Schema support, an io-ts codec of a kind the converter does not know).
   */
  readonly jsonSchema?: JsonObject | undefined
  readonly execute: (args: NoInfer<A>, context: ToolContext<C>) => Promise<unknown> | Effect.Effect<unknown, unknown> | unknown
  /** How long `execute` may run, e.g. `"30 seconds"` or a number of milliseconds. */
  readonly timeout?: Duration.Input | undefined
  /**
   * The longest output the model gets from this tool, in characters (UTF-16 code
   * units) of the text it reads: a string output as it is, anything else as JSON.
   * A longer output is cut and marked (`Tools.truncationMarker`). Overrides the limit
   * of the `Tools` it is in (`Tools.make(tools, { maxOutputLength })`, default
   * `Tools.defaultMaxOutputLength`). A positive integer; one past `Json.maxStringLength`
   * less 128 cuts there (the cut output, marker included, is a string of the state).
   */
  readonly maxOutputLength?: number | undefined
}

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const isFunction = (u: unknown): u is (...args: ReadonlyArray<never>) => unknown => typeof u === "function"

const isObject = (u: unknown): u is object => (typeof u === "object" && u !== null) || typeof u === "function"

const validatorOf = <A>(parameters: unknown): Tool<A>["validate"] => {
  const problem = schemaProblem(parameters)
  if (problem !== undefined) return invalid("parameters", problem)
  return isStandardSchema(parameters as object)
    ? fromStandardSchema(parameters as StandardSchemaV1<unknown, A>)
    : validatorFromCodec(parameters as t.Type<A, unknown, unknown>)
}

/** How much of bad arguments an error message shows. */
const excerptLength = 200

const isJsonText = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

const kindOfArguments = (input: unknown): string =>
  input === null ? "null" : Array.isArray(input) ? "an array" : typeof input === "object" ? "an object that is not plain data" : `a ${typeof input}`

/**
 * Why arguments are not a JSON object, with an excerpt of what was sent; `undefined`
 * for a plain object. A driver passes arguments it could not parse on as the text
 * the model sent (see `ToolCall`).
 *
 * @internal
 */
export const notAnObject = (input: unknown): string | undefined => {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const proto: unknown = Object.getPrototypeOf(input)
    if (proto === Object.prototype || proto === null) return undefined
  }
  if (typeof input !== "string") {
    return `the arguments are not a JSON object: got ${kindOfArguments(input)}: ${Json.excerpt(input, excerptLength)}`
  }
  const sent = `${Json.excerpt(input, excerptLength)} (${input.length} characters)`
  return isJsonText(input)
    // Valid JSON the driver would not take as arguments (the AI SDK, for one, refuses
    // "__proto__" and "constructor.prototype" keys), or JSON that is not an object.
    ? `the arguments are not a JSON object: the driver passed them on as text: ${sent}`
    : `the arguments are not JSON: the model sent text that does not parse: ${sent}`
}

// Every tool takes a JSON object (its schema's top-level type is "object"): anything
// else fails at the root before the validator sees it.
const objectsOnly = <A>(validate: Tool<A>["validate"]): Tool<A>["validate"] => (input) => {
  const problem = notAnObject(input)
  return problem === undefined ? validate(input) : Effect.fail({ path: "", message: problem })
}

// Copies and deeply freezes, or names the first value that is not JSON.
const jsonObjectAt = (path: string, value: unknown, what: string): JsonObject => {
  const decoded = Codecs.decode(Codecs.JsonObject, value)
  if (Result.isFailure(decoded)) {
    const at = decoded.failure.path
    return invalid(at === "" ? path : `${path}.${at}`, `${what} must be a JSON object: ${decoded.failure.message}`)
  }
  return decoded.success
}

const withoutDialect = (schema: JsonObject): JsonObject => {
  if (!("$schema" in schema)) return schema
  const { $schema: _, ...rest } = schema
  return Object.freeze(rest)
}

const derivedSchema = (parameters: object): JsonObject => {
  if (isStandardSchema(parameters)) {
    const standard = parameters["~standard"] as Partial<StandardJSONSchemaV1.Props> & { readonly vendor?: unknown }
    const converter = standard.jsonSchema
    if (!isObject(converter) || !isFunction(converter.input)) {
      return invalid(
        "jsonSchema",
        `the ${String(standard.vendor)} schema does not implement Standard JSON Schema: pass jsonSchema`,
      )
    }
    let raw: unknown
    try {
      raw = converter.input({ target: "draft-07" })
    } catch (cause) {
      return invalid(
        "jsonSchema",
        `${String(standard.vendor)} cannot convert the parameters to JSON Schema (${AgentError.messageOf(cause)}): pass jsonSchema`,
      )
    }
    return withoutDialect(jsonObjectAt("jsonSchema", raw, "the derived JSON Schema"))
  }
  const conversion = schemaFromCodec(parameters as t.Any)
  if (!conversion.ok) {
    return invalid(
      "jsonSchema",
      `cannot derive JSON Schema from the io-ts codec at ${conversion.path === "" ? "the root" : conversion.path}: ${conversion.reason}; pass jsonSchema`,
    )
  }
  return jsonObjectAt("jsonSchema", conversion.schema, "the derived JSON Schema")
}

const schemaOf = (given: unknown, parameters: object): JsonObject => {
  const schema = given === undefined ? derivedSchema(parameters) : jsonObjectAt("jsonSchema", given, "jsonSchema")
  if (schema.type !== "object") {
    // Providers take an object of named arguments, nothing else.
    invalid(
      given === undefined ? "parameters" : "jsonSchema",
      `the arguments must be a JSON object: the schema's top-level type must be "object", got ${JSON.stringify(schema.type ?? null)}`,
    )
  }
  return schema
}

const timeoutOf = (input: unknown): Duration.Duration | undefined => {
  if (input === undefined) return undefined
  let duration: Option.Option<Duration.Duration>
  try {
    duration = Duration.fromInput(input as Duration.Input)
  } catch {
    duration = Option.none()
  }
  if (Option.isNone(duration)) return invalid("timeout", "expected a duration such as \"30 seconds\" or a number of milliseconds")
  if (!Duration.isPositive(duration.value)) return invalid("timeout", `expected a positive duration, got ${Duration.format(duration.value)}`)
  return duration.value
}

/**
 * A positive integer limit, or `undefined`; else `InvalidConfiguration` at `path`.
 *
 * @internal
 */
export const maxOutputLengthOf = (input: unknown, path: string): number | undefined => {
  if (input === undefined) return undefined
  if (typeof input !== "number" || !Number.isSafeInteger(input) || input <= 0) {
    return invalid(path, `expected a positive integer (characters), got ${Json.excerpt(input, 60)}`)
  }
  return input
}

/** @internal */
export const isPromiseLike = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { readonly then?: unknown }).then === "function"

const identity = (u: unknown): unknown => u

// One Effect for every form of execute; a plain value or an Effect never goes through
// a Promise. The function runs when the Effect runs, not when it is built.
const lift = <A, C>(run: Options<A, C>["execute"]): Tool<A, C>["execute"] => (args, context) =>
  Effect.suspend(() => {
    let out: unknown
    try {
      out = run(args, context)
    } catch (error) {
      return Effect.fail(error)
    }
    if (Effect.isEffect(out)) return out as Effect.Effect<unknown, unknown>
    if (isPromiseLike(out)) return Effect.tryPromise({ try: () => out as PromiseLike<unknown>, catch: identity })
    return Effect.succeed(out)
  })

const makeTool = <A, C>(options: Options<A, C>): Tool<A, C> => {
  if (!isObject(options)) return invalid("", "expected the options of a tool")
  const { name, description = "", parameters, execute, timeout, maxOutputLength } = options
  if (typeof name !== "string" || !namePattern.test(name)) {
    invalid("name", `expected 1 to 64 letters, digits, "_" or "-", got ${JSON.stringify(name) ?? String(name)}`)
  }
  if (typeof description !== "string") invalid("description", "expected a string")
  const validate = objectsOnly(validatorOf<A>(parameters))
  const jsonSchema = schemaOf(options.jsonSchema, parameters as object)
  if (!isFunction(execute)) invalid("execute", "expected a function")
  return Object.freeze<Tool<A, C>>({
    _tag: "Tool",
    name,
    description,
    jsonSchema,
    timeout: timeoutOf(timeout),
    maxOutputLength: maxOutputLengthOf(maxOutputLength, "maxOutputLength"),
    validate,
    execute: lift(execute),
    run: execute as Tool<A, C>["run"],
  })
}

/**
 * A frozen tool. Throws a `HooklineError` carrying `InvalidConfiguration` that names
 * the bad field (`name`, `description`, `parameters`, `jsonSchema`, `execute`,
 * `timeout`, `maxOutputLength`). The JSON Schema is `jsonSchema` if given, else the Standard JSON Schema
 * of a Standard Schema that implements it (zod 4), else one derived from an io-ts
 * codec; a top-level `$schema` key of a derived schema is dropped.
 *
 * @example
 * ```ts
 * const add = Tool.make({
 *   name: "add",
 *   description: "Adds two numbers",
 *   parameters: t.type({ a: t.number, b: t.number }),
 *   execute: ({ a, b }) => a + b,
 * })
 * ```
 *
 * `Tool.make<C>()` (no arguments) gives a `make` whose tools read a run context of
 * type `C`, so `execute` is typed without annotating its context:
 *
 * @example
 * ```ts
 * interface Desk { readonly agent: string }
 * const whoami = Tool.make<Desk>()({
 *   name: "whoami",
 *   parameters: t.type({}),
 *   execute: (_args, { runContext }) => runContext.agent,
 * })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: {
  <C>(): <A>(options: Options<A, C>) => Tool<A, C>
  <A, C = unknown>(options: Options<A, C>): Tool<A, C>
} = function make<A, C>(...args: ReadonlyArray<Options<A, C>>): Tool<A, C> | (<B>(options: Options<B, C>) => Tool<B, C>) {
  return args.length === 0 ? (options) => makeTool(options) : makeTool(args[0] as Options<A, C>)
} as never

/**
 * @since 0.1.0
 * @category guards
 */
export const isTool = (u: unknown): u is Tool =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "Tool"
  && "name" in u && typeof u.name === "string"
  && "jsonSchema" in u && typeof u.jsonSchema === "object" && u.jsonSchema !== null
  && "validate" in u && typeof u.validate === "function"
  && "execute" in u && typeof u.execute === "function"

/**
 * The tool as the model sees it: name, description and the JSON Schema of its
 * arguments.
 *
 * @since 0.1.0
 * @category getters
 */
export const definition = (tool: Tool): InferenceRequest.ToolDefinition =>
  Object.freeze({ name: tool.name, description: tool.description, parameters: tool.jsonSchema })

/**
 * @since 0.1.0
 * @category models
 */
export interface FromAgentOptions<A> {
  /** The tool's name, as for `make`. */
  readonly name: string
  readonly description?: string | undefined
  /** What the model sends: an io-ts codec or a Standard Schema. Default `{ prompt: string }`. */
  readonly input?: Parameters<A> | undefined
  /** The JSON Schema of the input, when it cannot be derived (as for `make`). */
  readonly jsonSchema?: JsonObject | undefined
  /** The child's user message from the decoded input. Default: its `prompt` string, else its JSON. */
  readonly prompt?: ((input: A) => string) | undefined
  /**
   * The tool's result from the child's final state. Default: its structured output
   * (`UseOutput` of `@hookline/middleware`) when it has one, else its last answer's text.
   */
  readonly output?: ((final: AgentState) => unknown) | undefined
  /** How long the child may run: past it the child is interrupted (its AfterExecution runs) and the call fails. */
  readonly timeout?: Duration.Input | undefined
  readonly maxOutputLength?: number | undefined
}

const defaultInput = t.type({ prompt: t.string })

/**
 * What `fromAgent` needs of an agent (an `Agent.Agent<C>` is one): its tag, the run
 * context its loop reads (the phantom `C` is inferred from), and its Effect forms of
 * `run` and `resume`. Structural, so a tool does not import the agent.
 *
 * @since 0.1.0
 * @category models
 */
export interface AgentLike<C = unknown> {
  readonly _tag: "Agent"
  readonly loop: { readonly "~runContext"?: ((context: C) => void) | undefined }
  readonly runEffect: (input: AgentState, options: never) => Effect.Effect<AgentState>
  readonly resumeEffect: (
    run: AgentState,
    decisions: never,
    options: never,
  ) => Effect.Effect<AgentState, { readonly _tag: string; readonly message: string }>
}

const isAgent = (u: unknown): u is AgentLike<any> =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "Agent"
  && "runEffect" in u && typeof u.runEffect === "function" && "resumeEffect" in u && typeof u.resumeEffect === "function"

/**
 * An agent as a tool (a subagent): a call runs the agent on a user message made of the
 * call's input, and gives its answer to the parent as the tool's result. The child's
 * run has the parent's run id as `parentId`; it runs in the call (the parent's abort or
 * time limit interrupts it; its AfterExecution runs once) with the parent's run
 * context; its usage is added to the parent's when the call is committed (the token
 * guard sees it); its events reach the parent's stream nested under the call (an
 * `AgentEvent` of tag `Subagent`). A child that suspends on an approval suspends the
 * parent: the call waits, with the child's pending calls and state in its payload, and
 * `parent.resume(run, decisions)` with decisions for the child's calls resumes the
 * child. A child that fails or stops is a tool error naming its error; the parent goes on.
 *
 * @example
 * ```ts
 * const research = Tool.fromAgent(researcher, { name: "research", description: "Looks a question up" })
 * const agent = AgentBuilder.make(UseDriver(driver), UseTools([research]))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromAgent: {
  <A = { readonly prompt: string }>(options: FromAgentOptions<A>): <C>(agent: AgentLike<C>) => Tool<A, C>
  <C, A = { readonly prompt: string }>(agent: AgentLike<C>, options: FromAgentOptions<A>): Tool<A, C>
} = dual(
  (args) => isAgent(args[0]),
  <C, A>(agent: AgentLike<C>, options: FromAgentOptions<A>): Tool<A, C> => {
    if (!isObject(options)) return invalid("", "expected the options of a subagent tool")
    const { prompt = Subagent.defaultPrompt, output = Subagent.defaultOutput } = options
    if (!isFunction(prompt)) invalid("prompt", "expected a function from the input to the child's message")
    if (!isFunction(output)) invalid("output", "expected a function from the child's final state to the result")
    const child = agent as unknown as Subagent.ChildAgent
    return makeTool<A, C>({
      name: options.name,
      description: options.description,
      parameters: (options.input ?? defaultInput) as Parameters<A>,
      jsonSchema: options.jsonSchema,
      timeout: options.timeout,
      maxOutputLength: options.maxOutputLength,
      execute: (input, context) => Subagent.runChild(child, options.name, prompt(input), output, context),
    })
  },
)

/**
 * The arguments of `toolCall` as `tool` decodes them (its `parameters`: coercions,
 * transforms and defaults applied), for hooks and policies that decide on a call. The
 * call keeps the model's raw JSON (`toolCall.arguments`, stored and checkpointed as
 * it is); this is the value the tool would get. Decoded once per call object and tool
 * (a hook that edits a call makes a new object, which is decoded again). `undefined`
 * when the call is not for this tool (another name, no call) or its arguments do not
 * decode: such a call does not run (the model gets `ToolArgumentsInvalid`). The value
 * is shared by every reader of the call: do not change it.
 *
 * Throws a `HooklineError` carrying `InvalidConfiguration` at `parameters` when the
 * tool's validator answers asynchronously (a Standard Schema with an async check): a
 * hook cannot wait for it. A hook that throws fails (`HookFailed`), so a policy on such
 * a tool fails closed.
 *
 * @example
 * ```ts
 * const refund = Tool.make({
 *   name: "refund",
 *   parameters: z.object({ amount: z.coerce.number() }),
 *   execute: ({ amount }) => `refunded ${amount}`,
 * })
 * // The model sent { "amount": "500" }: the policy reads 500, as the tool would.
 * const bigRefund = (ctx: HookContext) => (Tool.argumentsOf(refund, ctx.toolCall)?.amount ?? 0) > 100
 * ```
 *
 * @since 0.1.0
 * @category getters
 */
export const argumentsOf = <A>(tool: Tool<A, any>, toolCall: ToolCall | undefined): A | undefined => {
  if (toolCall === undefined || toolCall.name !== tool.name) return undefined
  const decoded = decodeOnce(tool.validate, toolCall)
  switch (decoded._tag) {
    case "Valid":
      return decoded.value as A
    case "Invalid":
      return undefined
    case "Async":
      return invalid(
        "parameters",
        `the tool "${tool.name}" validates its arguments asynchronously: a hook cannot read them (Tool.argumentsOf); use a synchronous schema`,
      )
  }
}
