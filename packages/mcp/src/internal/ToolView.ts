/**
 * The tools one capability makes of a server's tool list: the filter and the prefix
 * applied, each listed tool checked and compiled once per list (the same array back
 * until the list changes, so the agent rebuilds its tool index only then).
 *
 * @internal
 */
import type { Tool } from "@hookline/agent"
import * as McpTool from "../McpTool.js"

/**
 * Which of the server's tools to keep: names (the server's, before any prefix), or a
 * predicate.
 *
 * @internal
 */
export type Filter =
  | ReadonlyArray<string>
  | ((tool: { readonly name: string; readonly description: string }) => boolean)

/**
 * @internal
 */
export interface ToolView {
  /** The tools made of `listed`: the same array for the same `listed`. */
  readonly tools: (listed: ReadonlyArray<McpTool.Listed>) => ReadonlyArray<Tool>
  /** The listed tools of the latest list that are not offered, and why. */
  readonly skipped: () => ReadonlyArray<McpTool.Skipped>
}

const selected = (filter: Filter | undefined, listed: McpTool.Listed): boolean => {
  if (filter === undefined) return true
  if (typeof filter === "function") {
    try {
      return filter({ name: listed.name, description: typeof listed.description === "string" ? listed.description : "" }) === true
    } catch {
      return false
    }
  }
  return filter.includes(listed.name)
}

/**
 * What a listed tool becomes: a tool, or why it is skipped (`McpTool.make`).
 *
 * @internal
 */
export type Made = ReturnType<typeof McpTool.make>

/**
 * Where a view may find a listed tool already made with the same options (a pooled
 * server's cache: an agent built for each run does not compile the same schemas again).
 *
 * @internal
 */
export type Memo = (listed: McpTool.Listed, make: () => Made) => Made

/**
 * A view that calls through `caller`.
 *
 * @internal
 */
export const make = (filter: Filter | undefined, options: McpTool.Options, caller: McpTool.Caller, memo?: Memo | undefined): ToolView => {
  let source: ReadonlyArray<McpTool.Listed> | undefined
  let tools: ReadonlyArray<Tool> = Object.freeze([])
  let skipped: ReadonlyArray<McpTool.Skipped> = Object.freeze([])
  return {
    tools: (listed) => {
      if (listed === source) return tools
      // One ajv per list: its cache holds this list's schemas only, and goes with it.
      let ajv: ReturnType<typeof McpTool.newAjv> | undefined
      const makeOne = (entry: McpTool.Listed): Made => McpTool.make(entry, caller, options, (ajv ??= McpTool.newAjv()))
      const made: Array<Tool> = []
      const left: Array<McpTool.Skipped> = []
      for (const entry of listed) {
        if (!selected(filter, entry)) continue
        const result = memo === undefined ? makeOne(entry) : memo(entry, () => makeOne(entry))
        if ("tool" in result) made.push(result.tool)
        else left.push(result.skipped)
      }
      source = listed
      tools = Object.freeze(made)
      skipped = Object.freeze(left)
      return tools
    },
    skipped: () => skipped,
  }
}

/**
 * A view made from a capability's options (`tools`, `prefix`, `timeout`, `maxOutputLength`).
 *
 * @internal
 */
export const fromOptions = (
  options: {
    readonly tools?: Filter | undefined
    readonly prefix?: string | undefined
    readonly timeout?: McpTool.Options["timeout"]
    readonly maxOutputLength?: number | undefined
  },
  caller: McpTool.Caller,
  memo?: Memo | undefined,
): ToolView =>
  make(options.tools, { prefix: options.prefix ?? "", timeout: options.timeout, maxOutputLength: options.maxOutputLength }, caller, memo)
