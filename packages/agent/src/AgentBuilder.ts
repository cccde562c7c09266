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
  type InferenceRequest,
  type Interceptor,
} from "@hookline/core"
import { Result } from "effect"
import { dual } from "effect/Function"
import * as t from "io-ts"
import * as Agent from "./Agent.js"
import * as AgentLoop from "./AgentLoop.js"
import * as ContextConfig from "./ContextConfig.js"
import type { DriverShape } from "./Driver.js"
import * as Tool from "./Tool.js"
import * as Tools from "./Tools.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Capability =
  | { readonly _tag: "UseHook"; readonly hook: Hook.AnyHook<unknown, never>; readonly options: HookStack.HookOptions }
  | { readonly _tag: "UseGuards"; readonly options: Guards.GuardOptions }
  | { readonly _tag: "UseContextConfig"; readonly config: ContextConfig.ContextConfig }
  | { readonly _tag: "UseTools"; readonly tools: ReadonlyArray<Tool.Tool> }
  | { readonly _tag: "UseDriver"; readonly driver: DriverShape }
  | { readonly _tag: "UseInterceptor"; readonly interceptor: Interceptor }
  | {
    readonly _tag: "UseLoopOptions"
    readonly options: {
      readonly toolConcurrency?: "sequential" | "concurrent" | undefined
      readonly modelOptions?: InferenceRequest.ModelOptions | undefined
    }
  }

/**
 * @since 0.1.0
 * @category models
 */
export interface AgentBuilder {
  readonly _tag: "AgentBuilder"
  readonly capabilities: ReadonlyArray<Capability>
}

/** @since 0.1.0 @category capabilities */
export const UseHook = (hook: Hook.AnyHook<unknown, never>, options: HookStack.HookOptions): Capability =>
  Object.freeze({ _tag: "UseHook", hook, options })
/** Guards with DESIGN.md's defaults; without UseGuards an agent gets the defaults too. @since 0.1.0 @category capabilities */
export const UseGuards = (options: Guards.GuardOptions = {}): Capability => Object.freeze({ _tag: "UseGuards", options })
/** @since 0.1.0 @category capabilities */
export const UseContextConfig = (config: ContextConfig.ContextConfig): Capability =>
  Object.freeze({ _tag: "UseContextConfig", config })
/** @since 0.1.0 @category capabilities */
export const UseTools = (tools: ReadonlyArray<Tool.Tool>): Capability => Object.freeze({ _tag: "UseTools", tools })
/** @since 0.1.0 @category capabilities */
export const UseDriver = (driver: DriverShape): Capability => Object.freeze({ _tag: "UseDriver", driver })
/** A custom interceptor in place of the hook stack (no UseHook, no guards). @since 0.1.0 @category capabilities */
export const UseInterceptor = (interceptor: Interceptor): Capability => Object.freeze({ _tag: "UseInterceptor", interceptor })
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
export const of = (...capabilities: ReadonlyArray<Capability>): AgentBuilder =>
  Object.freeze({ _tag: "AgentBuilder", capabilities: Object.freeze([...capabilities]) })

/**
 * A new builder with more capabilities; `self` is unchanged.
 *
 * @since 0.1.0
 * @category combinators
 */
export const use: {
  (...capabilities: ReadonlyArray<Capability>): (self: AgentBuilder) => AgentBuilder
  (self: AgentBuilder, ...capabilities: ReadonlyArray<Capability>): AgentBuilder
} = dual(
  (args) => typeof args[0] === "object" && args[0] !== null && (args[0] as { _tag?: unknown })._tag === "AgentBuilder",
  (self: AgentBuilder, ...capabilities: ReadonlyArray<Capability>): AgentBuilder => of(...self.capabilities, ...capabilities),
)

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

// Re-throws an InvalidConfiguration from a nested validator under this capability's path.
const under = <A>(prefix: string, f: () => A): A => {
  try {
    return f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError && error.error._tag === "InvalidConfiguration") {
      const inner = error.error.path
      const path = inner === "" ? prefix : inner.startsWith("[") ? `${prefix}${inner}` : `${prefix}.${inner}`
      const detail = error.error.message.replace(/^invalid configuration at [^:]+: /, "")
      return invalid(path, detail)
    }
    throw error
  }
}

const capabilityTags = new Set(["UseHook", "UseGuards", "UseContextConfig", "UseTools", "UseDriver", "UseInterceptor", "UseLoopOptions"])

/**
 * Validates the capabilities and makes the agent. Throws
 * `HooklineError(InvalidConfiguration)` naming the path of the first problem.
 *
 * Without `UseGuards` the agent gets the default guards (20 steps, 32768 tokens,
 * 300 seconds); pass `UseGuards({ maxSteps: null, ... })` to turn them off.
 *
 * @since 0.1.0
 * @category constructors
 */
export const build = (self: AgentBuilder): Agent.Agent => {
  let stack: HookStack.HookStack = HookStack.empty
  let guards: HookStack.HookStack | undefined
  let driver: DriverShape | undefined
  let interceptor: Interceptor | undefined
  let interceptorAt = ""
  let hooksAt = ""
  const tools: Array<Tool.Tool> = []
  const toolPaths: Array<string> = []
  let context: ContextConfig.ContextConfig = {}
  let contextAt = ""
  let loopOptions: Extract<Capability, { readonly _tag: "UseLoopOptions" }>["options"] = {}

  self.capabilities.forEach((capability, i) => {
    const at = `capabilities[${i}]`
    if (typeof capability !== "object" || capability === null || !capabilityTags.has((capability as { _tag?: string })._tag ?? "")) {
      return invalid(at, "expected a capability (UseHook, UseGuards, UseContextConfig, UseTools, UseDriver, UseInterceptor, UseLoopOptions)")
    }
    switch (capability._tag) {
      case "UseHook":
        hooksAt ||= at
        stack = under(at, () => HookStack.with(stack, capability.hook, capability.options))
        return
      case "UseGuards":
        if (guards !== undefined) return invalid(at, "UseGuards is given twice")
        hooksAt ||= at
        guards = under(at, () => Guards.useGuards(capability.options))
        return
      case "UseContextConfig": {
        const decoded = Codecs.decode(ContextConfigCodec, capability.config)
        if (Result.isFailure(decoded)) {
          const { path, message } = decoded.failure
          return invalid(path === "" ? at : `${at}.${path}`, message.replace(/^cannot decode [^:]+: /, ""))
        }
        // "Only non-empty values" apply: an empty prompt does not erase an earlier one.
        context = { ...context, ...definedOnly({ ...capability.config, systemPrompt: nonEmpty(capability.config.systemPrompt) }) }
        contextAt ||= at
        return
      }
      case "UseTools":
        if (!Array.isArray(capability.tools)) return invalid(`${at}.tools`, "expected an array of tools")
        capability.tools.forEach((tool, j) => {
          if (!Tool.isTool(tool)) invalid(`${at}.tools[${j}]`, "expected a Tool (Tool.make)")
          tools.push(tool)
          toolPaths.push(`${at}.tools[${j}]`)
        })
        return
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
      case "UseLoopOptions": {
        const decoded = Codecs.decode(LoopOptionsCodec, capability.options)
        if (Result.isFailure(decoded)) {
          const { path, message } = decoded.failure
          return invalid(path === "" ? at : `${at}.${path}`, message.replace(/^cannot decode [^:]+: /, ""))
        }
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
    }))
  return Agent.make(loop, driver)
}

/**
 * `build(of(...capabilities))`: validates and returns the agent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (...capabilities: ReadonlyArray<Capability>): Agent.Agent => build(of(...capabilities))

const definedOnly = <A extends object>(a: A): Partial<A> =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as Partial<A>

const LoopOptionsCodec = t.partial({
  toolConcurrency: t.union([t.literal("sequential"), t.literal("concurrent"), t.undefined]),
  modelOptions: t.union([Codecs.ModelOptions, t.undefined]),
})

const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s.trim() === "" ? undefined : s)

const ContextConfigCodec = t.partial({
  systemPrompt: t.union([t.string, t.undefined]),
  responseFormat: t.union([Codecs.ResponseFormat, t.undefined]),
})
