/**
 * Something an agent opens for each run and closes when the run ends: a connection to
 * an MCP server, a pool, a child process. Added with `UseResource`; what it gives the
 * run (tools, for now) joins the agent's own for that run only.
 *
 * @since 0.1.0
 */
import { AgentError } from "@hookline/core"
import type { Effect, Scope } from "effect"
import type { Tool } from "./Tool.js"

/**
 * What an open resource gives a run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Opened {
  /**
   * Its tools as they are now. Read before every model call and every tool call, so a
   * list that changes is picked up by the next one; return the same array while it
   * has not changed (the agent rebuilds its tool index only when it changes). A name
   * an agent's own tool (or an earlier resource's) has is left out.
   */
  readonly tools: () => ReadonlyArray<Tool>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Resource {
  readonly _tag: "Resource"
  /** Names it in errors: `mcp:files`. */
  readonly name: string
  /**
   * Opens it for one run; the run's scope closes it when the run ends, whatever the
   * outcome (done, failed, aborted). A failure here means no run started: `agent.run`
   * rejects with it.
   */
  readonly open: Effect.Effect<Opened, unknown, Scope.Scope>
}

/**
 * A frozen resource. Throws `InvalidConfiguration` for a name that is not a
 * non-empty string, or an `open` that is not an Effect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: { readonly name: string; readonly open: Resource["open"] }): Resource => {
  if (typeof options?.name !== "string" || options.name === "") {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("name", "expected a non-empty string"))
  }
  if (typeof options.open !== "object" || options.open === null) {
    throw new AgentError.HooklineError(AgentError.invalidConfiguration("open", "expected an Effect that opens the resource"))
  }
  return Object.freeze({ _tag: "Resource", name: options.name, open: options.open })
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isResource = (u: unknown): u is Resource =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "Resource"
  && "name" in u && typeof u.name === "string" && "open" in u && typeof u.open === "object" && u.open !== null
