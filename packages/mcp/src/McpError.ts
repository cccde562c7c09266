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
