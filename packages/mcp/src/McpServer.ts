/**
 * Where an MCP server is: a command run as a child process that speaks MCP over its
 * stdin and stdout, or a URL that speaks streamable HTTP. Plain frozen data, checked
 * when made.
 *
 * @since 0.1.0
 */
import { AgentError } from "@hookline/core"
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"

/**
 * A server started as a child process (`node server.mjs`), spoken to over stdio.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stdio {
  readonly _tag: "Stdio"
  /** Names the server in errors and in the name of its resource (`mcp:<name>`). */
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /**
   * Variables added to the child's environment, on top of `defaultEnv()` (a variable
   * given here wins). Nothing else of this process's environment is passed on.
   */
  readonly env: Readonly<Record<string, string>> | undefined
  readonly cwd: string | undefined
}

/**
 * A server at a URL, spoken to over streamable HTTP.
 *
 * @since 0.1.0
 * @category models
 */
export interface Http {
  readonly _tag: "Http"
  readonly name: string
  readonly url: string
  /** Sent with every request (an `Authorization` header, say). */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * @since 0.1.0
 * @category models
 */
export type McpServer = Stdio | Http

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const checkName = (name: unknown): string =>
  typeof name === "string" && namePattern.test(name)
    ? name
    : invalid("name", `expected 1 to 64 letters, digits, "_" or "-", got ${JSON.stringify(name) ?? String(name)}`)

const strings = (path: string, u: unknown): Readonly<Record<string, string>> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return invalid(path, "expected an object of strings")
  for (const [key, value] of Object.entries(u)) {
    if (typeof value !== "string") invalid(`${path}.${key}`, "expected a string")
  }
  return Object.freeze({ ...(u as Record<string, string>) })
}

const known = (options: object, keys: ReadonlyArray<string>): void => {
  for (const key of Object.keys(options)) {
    if (!keys.includes(key)) invalid(key, `unknown option ${JSON.stringify(key)}: expected one of ${keys.join(", ")}`)
  }
}

/**
 * The environment every stdio server starts with: the variables of this process that
 * are safe to pass on, as the MCP SDK chooses them (`HOME`, `LOGNAME`, `PATH`, `SHELL`,
 * `TERM`, `USER` on POSIX; `APPDATA`, `PATH`, `SystemRoot`, `TEMP` and the like on
 * Windows), leaving out values that look like shell functions. Secrets in this
 * process's environment (`OPENAI_API_KEY`...) are not among them: a server that needs
 * one gets it by name in `env`, which is added on top of this.
 *
 * @example
 * ```ts
 * McpServer.defaultEnv().PATH // this process's PATH
 * McpServer.stdio({ name: "github", command: "github-mcp", env: { GITHUB_TOKEN: process.env.GITHUB_TOKEN ?? "" } })
 * ```
 *
 * @since 0.1.0
 * @category getters
 */
export const defaultEnv = (): Readonly<Record<string, string>> => Object.freeze({ ...getDefaultEnvironment() })

/**
 * A server run as a child process. Throws `InvalidConfiguration` naming the bad field.
 * Its environment is `defaultEnv()` with `env` added on top, never this process's
 * whole environment.
 *
 * @example
 * ```ts
 * McpServer.stdio({ name: "files", command: "node", args: ["files-server.mjs"] })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const stdio = (options: {
  readonly name: string
  readonly command: string
  readonly args?: ReadonlyArray<string> | undefined
  readonly env?: Readonly<Record<string, string>> | undefined
  readonly cwd?: string | undefined
}): Stdio => {
  if (typeof options !== "object" || options === null) return invalid("", "expected the options of a server")
  known(options, ["name", "command", "args", "env", "cwd"])
  const name = checkName(options.name)
  if (typeof options.command !== "string" || options.command === "") invalid("command", "expected a non-empty string")
  const args = options.args ?? []
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string")) invalid("args", "expected an array of strings")
  if (options.cwd !== undefined && typeof options.cwd !== "string") invalid("cwd", "expected a string")
  return Object.freeze({
    _tag: "Stdio",
    name,
    command: options.command,
    args: Object.freeze([...args]),
    env: options.env === undefined ? undefined : strings("env", options.env),
    cwd: options.cwd,
  })
}

/**
 * A server at an `http:` or `https:` URL. Throws `InvalidConfiguration` naming the bad
 * field.
 *
 * @example
 * ```ts
 * McpServer.http({ name: "search", url: "http://127.0.0.1:8931/mcp" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const http = (options: {
  readonly name: string
  readonly url: string | URL
  readonly headers?: Readonly<Record<string, string>> | undefined
}): Http => {
  if (typeof options !== "object" || options === null) return invalid("", "expected the options of a server")
  known(options, ["name", "url", "headers"])
  const name = checkName(options.name)
  let url: URL | undefined
  try {
    url = new URL(String(options.url))
  } catch {
    url = undefined
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
    return invalid("url", `expected an http: or https: URL, got ${JSON.stringify(String(options.url))}`)
  }
  return Object.freeze({
    _tag: "Http",
    name,
    url: url.href,
    headers: options.headers === undefined ? Object.freeze({}) : strings("headers", options.headers),
  })
}

/**
 * How the server is reached, for messages: `stdio: node server.mjs`, `http: http://…`.
 *
 * @since 0.1.0
 * @category getters
 */
export const describe = (server: McpServer): string =>
  server._tag === "Stdio" ? `stdio: ${[server.command, ...server.args].join(" ")}` : `http: ${server.url}`
