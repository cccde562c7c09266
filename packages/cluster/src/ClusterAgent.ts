/**
 * An agent a runner serves, by name: functions do not travel, so every runner registers
 * the same agents under the same names, and a run names its agent. The runner adds the
 * checkpoints itself (`UseCheckpoints` on the cluster's store, with the agent's name and
 * tool set in each checkpoint's envelope).
 *
 * @since 0.1.0
 */
import { AgentBuilder, type Agent } from "@hookline/agent"
import { AgentError } from "@hookline/core"
import { Envelope, type RunStore, UseCheckpoints } from "@hookline/store"
import { Effect } from "effect"

/**
 * An agent's name and the capabilities it is built from (a driver, tools, guards, hooks),
 * without checkpoints.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClusterAgent {
  readonly _tag: "ClusterAgent"
  readonly name: string
  readonly capabilities: ReadonlyArray<AgentBuilder.Capability<any>>
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (name: string, ...capabilities: ReadonlyArray<AgentBuilder.Capability<any>>): ClusterAgent => {
  if (typeof name !== "string" || name.length === 0 || name.length > Envelope.bounds.agentName) {
    throw new AgentError.HooklineError(
      AgentError.invalidConfiguration("name", `expected an agent name of 1 to ${Envelope.bounds.agentName} characters, got ${JSON.stringify(name)}`),
    )
  }
  return Object.freeze({ _tag: "ClusterAgent", name, capabilities: Object.freeze([...capabilities]) })
}

/**
 * An agent as a runner holds it: built with checkpoints on the store, and its tool set.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registered {
  readonly name: string
  readonly agent: Agent.Agent<any>
  readonly toolSet: Envelope.ToolSet
}

/**
 * The runner's agents by name; two of one name are a configuration error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const register = (
  agents: ReadonlyArray<ClusterAgent>,
  store: RunStore.RunStore,
  options: { readonly lease: number },
): Effect.Effect<ReadonlyMap<string, Registered>> =>
  Effect.gen(function*() {
    const byName = new Map<string, Registered>()
    for (const entry of agents) {
      if (byName.has(entry.name)) {
        return yield* Effect.die(new AgentError.HooklineError(AgentError.invalidConfiguration("agents", `two agents are named ${JSON.stringify(entry.name)}`)))
      }
      const probe = AgentBuilder.make(...entry.capabilities)
      const toolSet = yield* Envelope.toolSetOfEffect(probe.loop.tools.definitions.map((d) => ({ name: d.name, jsonSchema: d.parameters })))
      const agent = AgentBuilder.make(...entry.capabilities, UseCheckpoints(store, { lease: options.lease, envelope: { agent: entry.name, toolSet } }))
      byName.set(entry.name, { name: entry.name, agent, toolSet })
    }
    return byName
  })
