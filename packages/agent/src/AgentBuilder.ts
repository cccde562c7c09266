/**
 * Composes an agent from capabilities: `UseDriver`, `UseTools`, `UseHook`,
 * `UseGuards`, `UseContextConfig`, `UseInterceptor`, `UseLoopOptions`. Immutable;
 * the configuration is validated when the agent is built, with typed errors naming
 * the path (`capabilities[2].maxSteps`).
 *
 * @since 0.1.0
 */
import {
  AgentError,
  Codecs,
  Guards,
  Hook,
  HookStack,
  HookTriggers,
  Json,
  type HookExecuted,
  type InferenceRequest,
  type Interceptor,
  type WrapHook,
} from "@hookline/core"
import { Result } from "effect"
import { dual } from "effect/Function"
import * as t from "io-ts"
import * as Agent from "./Agent.js"
import * as AgentLoop from "./AgentLoop.js"
import * as ContextConfig from "./ContextConfig.js"
import { check as checkContextConfig } from "./internal/contextConfig.js"
import * as RunContext from "./internal/runContext.js"
import * as Resource from "./Resource.js"
import type { DriverShape } from "./Driver.js"
import * as Tool from "./Tool.js"
import * as Tools from "./Tools.js"

/**
 * What an agent is built from. `C` is the per-run context its hooks and tools read
 * (type only): `AgentBuilder.make` infers the agent's from its capabilities.
 *
 * @since 0.1.0
 * @category models
 */
export type Capability<C = unknown> = CapabilityData & { readonly "~runContext"?: ((context: C) => void) | undefined }

type CapabilityData =
  | { readonly _tag: "UseHook"; readonly hook: Hook.AnyHook<unknown, never>; readonly options: HookStack.HookOptions }
  | { readonly _tag: "UseWrap"; readonly wrap: WrapHook.WrapHook<unknown, never>; readonly options: HookStack.WrapOptions }
  | { readonly _tag: "UseHooks"; readonly stack: HookStack.HookStack }
  | { readonly _tag: "UseGuards"; readonly options: Guards.GuardOptions }
  | { readonly _tag: "UseContextConfig"; readonly config: ContextConfig.ContextConfig }
  | { readonly _tag: "UseTools"; readonly tools: ReadonlyArray<Tool.Tool>; readonly options: ToolsOptions }
  | { readonly _tag: "UseDriver"; readonly driver: DriverShape }
  | { readonly _tag: "UseInterceptor"; readonly interceptor: Interceptor }
  | { readonly _tag: "UseAll"; readonly capabilities: ReadonlyArray<Capability> }
  | { readonly _tag: "UseLoader"; readonly load: Agent.Loader; readonly settle?: Agent.Settle | undefined }
  | { readonly _tag: "UseResource"; readonly resource: Resource.Resource }
  | { readonly _tag: "UseRunContext"; readonly schema: RunContext.Schema<unknown> }

  | { readonly _tag: "UseHookListener"; readonly listener: HookExecuted.EventSink }
  | { readonly _tag: "UseAroundRun"; readonly around: AgentLoop.AroundRun }
  | {
    readonly _tag: "UseLoopOptions"
    readonly options: {
      readonly toolConcurrency?: "sequential" | "concurrent" | undefined
      readonly modelOptions?: InferenceRequest.ModelOptions | undefined
      /** When a stream emits the model's text: `AgentLoop.TextDeltas`. */
      readonly textDeltas?: AgentLoop.TextDeltas | undefined
    }
  }

/**
 * Options of `UseTools`, for the tools it lists.
 *
 * @since 0.1.0
 * @category models
 */
export interface ToolsOptions {
  /**
   * The longest output the model gets from each of these tools, in characters of the
   * text it reads; a longer one is cut and marked (`Tools.truncationMarker`). A tool's
   * own `maxOutputLength` wins; default `Tools.defaultMaxOutputLength`.
   */
  readonly maxOutputLength?: number | undefined
}

type LoopOptions = Extract<CapabilityData, { readonly _tag: "UseLoopOptions" }>["options"]

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentBuilder<C = unknown> {
  readonly _tag: "AgentBuilder"
  readonly capabilities: ReadonlyArray<Capability<C>>
}

/**
 * A hook with its registration options. A hook that reads the per-run context
 * (`Hook<{ role: string }>`) makes the agent ask for that context on every run.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseHook = <C = unknown>(hook: Hook.AnyHook<unknown, never, C>, options: HookStack.HookOptions): Capability<C> =>
  Object.freeze({ _tag: "UseHook", hook, options })
/**
 * A wrap hook around each model call (`WrapHook.inference`) or each tool execution
 * (`WrapHook.toolUse`); higher priority is outer.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseWrap = (wrap: WrapHook.WrapHook<unknown, never>, options: HookStack.WrapOptions = {}): Capability =>
  Object.freeze({ _tag: "UseWrap", wrap, options })
/**
 * A stack of hooks with their own options: a guard of your own (`Guards.make`), a
 * ready-made set. Its hooks join the agent's stack in their order.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseHooks = (stack: HookStack.HookStack): Capability => Object.freeze({ _tag: "UseHooks", stack })
/** Guards with DESIGN.md's defaults; without UseGuards an agent gets the defaults too. @since 0.1.0 @category capabilities */
export const UseGuards = (options: Guards.GuardOptions = {}): Capability => Object.freeze({ _tag: "UseGuards", options })
/** @since 0.1.0 @category capabilities */
export const UseContextConfig = (config: ContextConfig.ContextConfig): Capability =>
  Object.freeze({ _tag: "UseContextConfig", config })
/**
 * Tools for the agent; `options.maxOutputLength` bounds what each of them gives the
 * model (`UseTools([readFile], { maxOutputLength: 20_000 })`).
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseTools = <C = unknown>(tools: ReadonlyArray<Tool.Tool<any, C>>, options: ToolsOptions = {}): Capability<C> =>
  Object.freeze({ _tag: "UseTools", tools, options })
/** @since 0.1.0 @category capabilities */
export const UseDriver = (driver: DriverShape): Capability => Object.freeze({ _tag: "UseDriver", driver })
/** A custom interceptor in place of the hook stack (no UseHook, no guards). @since 0.1.0 @category capabilities */
export const UseInterceptor = (interceptor: Interceptor): Capability => Object.freeze({ _tag: "UseInterceptor", interceptor })
/**
 * Several capabilities as one (what a package offers as a single capability, like
 * `UseCheckpoints`); their paths read `capabilities[2].capabilities[0]`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseAll = (...capabilities: ReadonlyArray<Capability>): Capability =>
  Object.freeze({ _tag: "UseAll", capabilities: Object.freeze([...capabilities]) })
/**
 * How `agent.resume(runId)` loads a run (a store's capability gives it), and what the
 * end of a resumed run means to the store (`settle`: a run whose writes the store
 * refused fails the resume with the store's typed error).
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseLoader = (load: Agent.Loader, settle?: Agent.Settle): Capability =>
  Object.freeze(settle === undefined ? { _tag: "UseLoader", load } : { _tag: "UseLoader", load, settle })
/**
 * A resource opened for each run and closed when it ends (an MCP connection: see
 * `@hookline/mcp`); its tools join the agent's for that run.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseResource = (resource: Resource.Resource): Capability => Object.freeze({ _tag: "UseResource", resource })
/**
 * Declares the per-run context the agent's hooks and tools read, with an io-ts codec or
 * a Standard Schema (`UseRunContext(t.type({ role: t.string }))`): the agent's type
 * takes `C` from it, and each run's context is decoded before BeforeExecution. A run
 * given none (a JavaScript caller who forgot `{ context }`), or one that does not
 * decode, fails there with `InvalidConfiguration` at `context` (`context.role`...),
 * before any hook reads it. Without it the loop cannot tell a forgotten context, since
 * types are erased: a hook then meets `undefined`.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseRunContext = <C>(schema: AgentLoop.RunContextSchema<C>): Capability<C> =>
  Object.freeze({ _tag: "UseRunContext", schema: schema as RunContext.Schema<unknown> })
/**
 * A listener to every hook execution of every run of the agent, its subagents' runs
 * (`Tool.fromAgent`) included: one `HookExecuted` event per execution, with its run id,
 * its tool call id and what the hook did (`effect`). For tracing and metrics; a
 * listener must not throw (a throw is caught and ignored) and should return at once:
 * it runs on the hook's path. Events are built only when a listener, a sink or a
 * stream with `hookEvents` takes them.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseHookListener = (listener: HookExecuted.EventSink): Capability =>
  Object.freeze({ _tag: "UseHookListener", listener })
/**
 * Runs every run of the agent inside `around` (its subagents' runs get their own
 * agent's): the whole run, from before BeforeExecution to after AfterExecution, the
 * loop's own logs (the failed-run warning) included. For what a whole run should see in
 * its fiber: a service, a reference, a logger, a tracer, a parent span
 * (`@hookline/otel` makes logs carry trace ids so). Several are nested, the first given
 * outermost. `around` is generic in the run, so it cannot change its result or error.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const UseAroundRun = (around: AgentLoop.AroundRun): Capability => Object.freeze({ _tag: "UseAroundRun", around })
/** @since 0.1.0 @category capabilities */
export const UseLoopOptions = (options: Extract<Capability, { readonly _tag: "UseLoopOptions" }>["options"]): Capability =>
  Object.freeze({ _tag: "UseLoopOptions", options })

/**
 * The builder with no capabilities.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: AgentBuilder = Object.freeze({ _tag: "AgentBuilder", capabilities: Object.freeze([]) })

/**
 * A builder with these capabilities.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = <C = unknown>(...capabilities: ReadonlyArray<Capability<C>>): AgentBuilder<C> =>
  Object.freeze({ _tag: "AgentBuilder", capabilities: Object.freeze([...capabilities]) })

/**
 * A new builder with more capabilities; `self` is unchanged.
 *
 * @since 0.1.0
 * @category combinators
 */
export const use: {
  <C>(...capabilities: ReadonlyArray<Capability<C>>): (self: AgentBuilder<C>) => AgentBuilder<C>
  <C>(self: AgentBuilder<C>, ...capabilities: ReadonlyArray<Capability<C>>): AgentBuilder<C>
} = dual(
  (args) => typeof args[0] === "object" && args[0] !== null && (args[0] as { _tag?: unknown })._tag === "AgentBuilder",
  <C>(self: AgentBuilder<C>, ...capabilities: ReadonlyArray<Capability<C>>): AgentBuilder<C> => of(...self.capabilities, ...capabilities),
)

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

// Re-throws an InvalidConfiguration from a nested validator under this capability's
// path. Anything else a validator throws (a getter, a value it did not expect) is a
// bad configuration too, at the capability.
const under = <A>(prefix: string, f: () => A, validating = true): A => {
  try {
    return f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "InvalidConfiguration") {
      const inner = error.error.path
      const path = inner === "" ? prefix : inner.startsWith("[") ? `${prefix}${inner}` : `${prefix}.${inner}`
      const detail = error.error.message.replace(/^invalid configuration at [^:]+: /, "")
      return invalid(path, detail)
    }
    if (!validating) throw error
    return invalid(prefix, `validating it threw: ${AgentError.messageOf(error)}`)
  }
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// An options object with a key the capability does not know is a typo that would be
// silently ignored (`maxStep: 5` leaves the default of 20 steps): refuse it.
const knownKeys = (at: string, options: unknown, keys: ReadonlyArray<string>): void => {
  if (!isRecord(options)) return
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) {
      invalid(`${at}.${key}`, `unknown option ${JSON.stringify(key)}: expected one of ${keys.join(", ")}`)
    }
  }
}

// The keys of an options type; the compiler checks that the list has all of them, so
// an option added to a type cannot be refused here by mistake.
const keysOf = <T>() =>
<const K extends ReadonlyArray<keyof T & string>>(
  keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : never),
): ReadonlyArray<string> => keys

const toolsKeys = keysOf<ToolsOptions>()(["maxOutputLength"])
const loopKeys = keysOf<LoopOptions>()(["toolConcurrency", "modelOptions", "textDeltas"])
const modelKeys = keysOf<InferenceRequest.ModelOptions>()(
  ["temperature", "topP", "topK", "maxOutputTokens", "seed", "stopSequences", "providerOptions"],
)

// Ranges every provider agrees on; the codec has checked the types.
const checkModelOptions = (at: string, options: InferenceRequest.ModelOptions | undefined): void => {
  if (options === undefined) return
  const { temperature, topP, topK, maxOutputTokens, seed } = options
  const got = (u: unknown) => Json.excerpt(u, 60)
  if (temperature !== undefined && temperature < 0) invalid(`${at}.temperature`, `expected a number >= 0, got ${got(temperature)}`)
  if (topP !== undefined && !(topP >= 0 && topP <= 1)) invalid(`${at}.topP`, `expected a number from 0 to 1, got ${got(topP)}`)
  if (topK !== undefined && !(Number.isSafeInteger(topK) && topK > 0)) invalid(`${at}.topK`, `expected a positive integer, got ${got(topK)}`)
  if (maxOutputTokens !== undefined && !(Number.isSafeInteger(maxOutputTokens) && maxOutputTokens > 0)) {
    invalid(`${at}.maxOutputTokens`, `expected a positive integer, got ${got(maxOutputTokens)}`)
  }
  if (seed !== undefined && !Number.isSafeInteger(seed)) invalid(`${at}.seed`, `expected an integer, got ${got(seed)}`)
}

const capabilityTags = new Set(["UseHook", "UseHooks", "UseWrap", "UseGuards", "UseContextConfig", "UseTools", "UseDriver", "UseInterceptor", "UseLoopOptions", "UseAll", "UseLoader", "UseResource", "UseRunContext", "UseHookListener", "UseAroundRun"])

// The capabilities with each bundle (UseAll) replaced by its members, with their paths.
const flatten = (capabilities: ReadonlyArray<Capability>, prefix: string, depth = 0): Array<readonly [Capability, string]> =>
  capabilities.flatMap((capability, i): Array<readonly [Capability, string]> => {
    const at = `${prefix}[${i}]`
    if (typeof capability === "object" && capability !== null && capability._tag === "UseAll") {
      if (!Array.isArray(capability.capabilities)) return invalid(`${at}.capabilities`, "expected an array of capabilities")
      if (depth >= 8) return invalid(at, "capabilities nested deeper than 8 levels")
      return flatten(capability.capabilities, `${at}.capabilities`, depth + 1)
    }
    return [[capability, at]]
  })

/**
 * Validates the capabilities and makes the agent. Throws
 * `HooklineError(InvalidConfiguration)` naming the path of the first problem
 * (`capabilities[2].maxSteps`): a wrong type, a value out of range, an unknown key of
 * an options object (a typo would otherwise be ignored), a tool name given twice.
 *
 * Without `UseGuards` the agent gets the default guards (20 steps, 32768 tokens,
 * 300 seconds); pass `UseGuards({ maxSteps: null, ... })` to turn them off.
 *
 * @since 0.1.0
 * @category constructors
 */
export const build = <C = unknown>(self: AgentBuilder<C>): Agent.Agent<C> => {
  let stack: HookStack.HookStack = HookStack.empty
  let guards: HookStack.HookStack | undefined
  // The time guard's limit also bounds the run's wall clock (AgentLoop.maxExecutionTime).
  let maxExecutionTime: Guards.GuardOptions["maxExecutionTime"] = Guards.defaults.maxExecutionTime
  // And its steps guard's limit bounds the failed steps too (AgentLoop.maxSteps).
  let maxSteps: Guards.GuardOptions["maxSteps"] = Guards.defaults.maxSteps
  let driver: DriverShape | undefined
  let interceptor: Interceptor | undefined
  let interceptorAt = ""
  let hooksAt = ""
  const tools: Array<Tool.Tool> = []
  const toolPaths: Array<string> = []
  let context: ContextConfig.ContextConfig = {}
  let contextAt = ""
  let loopOptions: Extract<Capability, { readonly _tag: "UseLoopOptions" }>["options"] = {}
  let loader: Agent.Loader | undefined
  let settle: Agent.Settle | undefined
  const resources: Array<Resource.Resource> = []
  let runContext: RunContext.Schema<unknown> | undefined
  const hookListeners: Array<HookExecuted.EventSink> = []
  const aroundRun: Array<AgentLoop.AroundRun> = []

  flatten(self.capabilities as ReadonlyArray<Capability>, "capabilities").forEach(([capability, at]) => {
    if (typeof capability !== "object" || capability === null || !capabilityTags.has((capability as { _tag?: string })._tag ?? "")) {
      return invalid(at, "expected a capability (UseHook, UseHooks, UseWrap, UseGuards, UseContextConfig, UseTools, UseDriver, UseInterceptor, UseLoopOptions, UseResource, UseRunContext, UseHookListener, UseAroundRun, UseAll, UseLoader)")
    }
    switch (capability._tag) {
      case "UseAll":
        return
      case "UseLoader":
        if (loader !== undefined) return invalid(at, "UseLoader is given twice (two stores?)")
        if (typeof capability.load !== "function") return invalid(`${at}.load`, "expected a function from a run id to its state")
        if (capability.settle !== undefined && typeof capability.settle !== "function") {
          return invalid(`${at}.settle`, "expected a function from a resumed run's final state to that state")
        }
        loader = capability.load
        settle = capability.settle
        return
      case "UseHook":
        hooksAt ||= at
        stack = under(at, () => HookStack.with(stack, capability.hook, capability.options))
        return
      case "UseWrap":
        hooksAt ||= at
        stack = under(at, () => HookStack.withWrap(stack, capability.wrap, capability.options))
        return
      case "UseHooks":
        hooksAt ||= at
        if (!HookStack.isHookStack(capability.stack)) return invalid(`${at}.stack`, "expected a HookStack (Guards.make, HookStack.with)")
        stack = under(at, () => HookStack.concat(stack, capability.stack as HookStack.HookStack))
        return
      case "UseGuards":
        if (guards !== undefined) return invalid(at, "UseGuards is given twice")
        hooksAt ||= at
        if (capability.options !== undefined && !isRecord(capability.options)) return invalid(at, "expected the guards' options (an object)")
        guards = under(at, () => Guards.useGuards(capability.options))
        if (capability.options?.maxExecutionTime !== undefined) maxExecutionTime = capability.options.maxExecutionTime
        // Validated by useGuards above: a whole number >= 0 or null.
        if (capability.options?.maxSteps !== undefined) maxSteps = capability.options.maxSteps as number | null
        return
      case "UseContextConfig": {
        // Each field read once and bounded (internal/contextConfig.ts); the checked copy is kept.
        const checked = under(at, () => checkContextConfig(capability.config))
        // "Only non-empty values" apply: an empty prompt does not erase an earlier one.
        context = { ...context, ...definedOnly({ ...checked, systemPrompt: nonEmpty(checked.systemPrompt) }) }
        contextAt ||= at
        return
      }
      case "UseTools": {
        if (!Array.isArray(capability.tools)) return invalid(`${at}.tools`, "expected an array of tools")
        const options: unknown = capability.options ?? {}
        if (!isRecord(options)) return invalid(at, "expected the tools' options (an object)")
        knownKeys(at, options, toolsKeys)
        const limit = under(at, () => Tool.maxOutputLengthOf(options["maxOutputLength"], "maxOutputLength"))
        capability.tools.forEach((tool, j) => {
          if (!Tool.isTool(tool)) invalid(`${at}.tools[${j}]`, "expected a Tool (Tool.make)")
          // The capability's limit is the default of its own tools; a tool's own wins.
          tools.push(limit === undefined || tool.maxOutputLength !== undefined ? tool : Object.freeze({ ...tool, maxOutputLength: limit }))
          toolPaths.push(`${at}.tools[${j}]`)
        })
        return
      }
      case "UseDriver":
        if (driver !== undefined) return invalid(at, "UseDriver is given twice")
        if (typeof capability.driver?.generate !== "function" || typeof capability.driver?.stream !== "function") {
          return invalid(`${at}.driver`, "expected a driver (generate and stream), e.g. Driver.make or Driver.fromPromise")
        }
        driver = capability.driver
        return
      case "UseInterceptor":
        if (interceptor !== undefined) return invalid(at, "UseInterceptor is given twice")
        if (typeof capability.interceptor?.intercept !== "function") {
          return invalid(`${at}.interceptor`, "expected an interceptor with an intercept function")
        }
        interceptor = capability.interceptor
        interceptorAt = at
        return
      case "UseRunContext": {
        if (runContext !== undefined) return invalid(at, "UseRunContext is given twice")
        const problem = RunContext.problemOf(capability.schema)
        if (problem !== undefined) return invalid(`${at}.schema`, problem)
        runContext = capability.schema
        return
      }

      case "UseHookListener":
        if (typeof capability.listener !== "function") return invalid(`${at}.listener`, "expected a function (event: HookExecuted) => void")
        hookListeners.push(capability.listener)
        return
      case "UseAroundRun":
        if (typeof capability.around !== "function") return invalid(`${at}.around`, "expected a function (run: Effect) => Effect")
        aroundRun.push(capability.around)
        return
      case "UseResource":
        if (!Resource.isResource(capability.resource)) return invalid(`${at}.resource`, "expected a resource (Resource.make)")
        resources.push(capability.resource)
        return
      case "UseLoopOptions": {
        knownKeys(at, capability.options, loopKeys)
        if (isRecord(capability.options)) knownKeys(`${at}.modelOptions`, capability.options["modelOptions"], modelKeys)
        const decoded = Codecs.decode(LoopOptionsCodec, capability.options)
        if (Result.isFailure(decoded)) {
          const { path, message } = decoded.failure
          return invalid(path === "" ? at : `${at}.${path}`, message.replace(/^cannot decode [^:]+: /, ""))
        }
        checkModelOptions(`${at}.modelOptions`, decoded.success.modelOptions)
        loopOptions = { ...loopOptions, ...definedOnly(capability.options) }
        return
      }
    }
  })

  if (interceptor !== undefined && hooksAt !== "") {
    invalid(hooksAt, `UseInterceptor (${interceptorAt}) replaces the hook stack, so hooks and guards cannot be added to it`)
  }
  if (interceptor !== undefined && contextAt !== "") {
    invalid(contextAt, `UseInterceptor (${interceptorAt}) replaces the hook stack that applies the context config`)
  }
  // Names are checked together, so a duplicate is reported at its own capability.
  const seen = new Map<string, string>()
  tools.forEach((tool, i) => {
    const earlier = seen.get(tool.name)
    if (earlier !== undefined) invalid(`${toolPaths[i]}.name`, `the tool name "${tool.name}" is taken by ${earlier}`)
    seen.set(tool.name, toolPaths[i] as string)
  })

  const withConfig = context.systemPrompt === undefined && context.responseFormat === undefined
    ? stack
    : HookStack.with(stack, ContextConfig.ApplyContextConfigHook(context), {
      triggers: HookTriggers.beforeStep,
      priority: ContextConfig.priority,
      name: ContextConfig.name,
    })
  const loop = under("capabilities", () =>
    AgentLoop.make({
      interceptor: interceptor ?? HookStack.concat(guards ?? Guards.useGuards(), withConfig),
      tools: Tools.make(tools),
      toolConcurrency: loopOptions.toolConcurrency,
      modelOptions: loopOptions.modelOptions,
      textDeltas: loopOptions.textDeltas,
      // A custom interceptor has no guards: no time limit either.
      maxExecutionTime: interceptor === undefined ? maxExecutionTime : undefined,
      maxSteps: interceptor === undefined ? maxSteps : undefined,
      runContext,

      hookListeners,
      aroundRun,
    }), false)
  return Agent.make(loop as AgentLoop.AgentLoop<never, C>, driver, resources, loader, settle)
}

/**
 * `build(of(...capabilities))`: validates and returns the agent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C = unknown>(...capabilities: ReadonlyArray<Capability<C>>): Agent.Agent<C> => build(of(...capabilities))

const definedOnly = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>

const LoopOptionsCodec = t.partial({
  toolConcurrency: t.union([t.literal("sequential"), t.literal("concurrent"), t.undefined]),
  modelOptions: t.union([Codecs.ModelOptions, t.undefined]),
  textDeltas: t.union([t.literal("auto"), t.literal("live"), t.literal("checked"), t.undefined]),
})

const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s.trim() === "" ? undefined : s)

