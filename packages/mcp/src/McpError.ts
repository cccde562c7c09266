/**
 * The errors of `@hookline/mcp`, as tagged errors (`Effect.catchTag` works on them;
 * each is an `Error`, so a rejected Promise carries it as it is).
 *
 * @since 0.1.0
 */
import { Data } from "effect"

/**
 * The server could not be reached or would not start: the command is missing or
 * exited, the URL does not answer, the MCP handshake or the first tool list failed.
 * `server` is the name given to `McpServer.stdio`/`McpServer.http`.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpConnectionFailed extends Data.TaggedError("McpConnectionFailed")<{
  readonly server: string
  readonly message: string
}> {}

/**
 * A tool call whose server went away before it answered: its process exited or was
 * killed (a pooled server's failed health check included), or its connection closed.
 * The run gets it as a tool error (`ToolFailed`, whose message carries this one) and
 * goes on; a pooled server is started again for the runs that come after.
 *
 * @since 0.1.0
 * @category errors
 */
export class McpServerExited extends Data.TaggedError("McpServerExited")<{
  readonly server: string
  /** The process that went away (a stdio server). */
  readonly pid: number | undefined
  readonly message: string
}> {}
