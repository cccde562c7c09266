/**
 * What makes two servers the same server for a pool: the whole launch spec. For stdio,
 * the name, command, arguments, working directory and the environment the child would
 * get (the default subset of this process's included); for HTTP, the name, URL and
 * headers (credentials). Two specs that differ in anything, a tenant's token or one
 * variable, never share a process or a session.
 *
 * @internal
 */
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"
import type * as McpServer from "../McpServer.js"

// Entries sorted by key: the order an object was built in is not part of the spec.
const sorted = (record: Readonly<Record<string, string>>): ReadonlyArray<readonly [string, string]> =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * The key of a server's launch spec: equal for equal specs, different otherwise.
 *
 * @internal
 */
export const of = (server: McpServer.McpServer): string =>
  JSON.stringify(
    server._tag === "Stdio"
      ? ["Stdio", server.name, server.command, server.args, server.cwd ?? null, sorted({ ...getDefaultEnvironment(), ...server.env })]
      : ["Http", server.name, server.url, sorted(server.headers)],
  )
