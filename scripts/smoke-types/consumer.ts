// A consumer of every package's published declarations. scripts/smoke-types.mjs copies
// it as .mts (ESM) and .cts (CommonJS) and compiles it in each resolution mode with
// skipLibCheck: false, so every declaration file the packages ship is checked too.
import { AgentState, HookContext, HookStack, Guards, Truncation, type Hook } from "@hookline/core"
import { AgentBuilder, Driver, UseDriver, UseGuards, type Agent } from "@hookline/agent"
import { AiSdkDriver } from "@hookline/ai-sdk"
import { UseMcp } from "@hookline/mcp"
import { UseModelRetry } from "@hookline/middleware"
import { MemoryStore, PostgresStore, StoreError, type RunStore } from "@hookline/store"
import { ScriptedDriver } from "@hookline/testing"
import { StoreConformance } from "@hookline/testing/store"

const hook: Hook = (ctx) => HookContext.withMetadata(ctx, { seen: true })
const state: AgentState = AgentState.make({ id: "types" })
const stack: HookStack = HookStack.with(Guards.useGuards(), hook, { triggers: "BeforeStep", name: "seen" })
export const out: HookContext = HookStack.run(stack, HookContext.make({ trigger: "BeforeStep", state, createdAt: 0 }))
export const short: string = Truncation.truncate("a long text", 4)

const driver: Driver.DriverShape = Driver.fromPromise({ generate: async () => ({ text: "hi" }) })
export const agent: Agent = AgentBuilder.make(UseDriver(ScriptedDriver.make([ScriptedDriver.text("hi")])), UseGuards({ maxSteps: 3 }), UseModelRetry())
export const other: Agent = AgentBuilder.make(UseDriver(driver))
export const final: Promise<AgentState> = agent.run("hello")
export const store: RunStore = MemoryStore.make()
export const postgres: (options: PostgresStore.Options) => Promise<RunStore> = PostgresStore.open
export const missing: (e: StoreError.PeerMissing) => string = (e) => e.peer
export const fromAiSdk: typeof AiSdkDriver.make = AiSdkDriver.make
export const mcp: typeof UseMcp = UseMcp
export const conformance: typeof StoreConformance.register = StoreConformance.register
