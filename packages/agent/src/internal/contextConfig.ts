// The context config as checked where it enters (`UseContextConfig` when the agent is
// built, `ApplyContextConfigHook` when the hook is made): each field read once, a prompt
// within `Json.maxStringLength` (the state holds none longer, so a longer one would fail
// every run at its first step rather than the build), a response format that
// `Codecs.ResponseFormat` decodes (its frozen copy is kept, not the caller's object).
import { AgentError, Codecs, Json, type InferenceRequest } from "@hookline/core"
import { Result } from "effect"

const invalid = (path: string, detail: string): never => {
  throw new AgentError.HooklineError(AgentError.invalidConfiguration(path, detail))
}

const keys: ReadonlyArray<string> = ["systemPrompt", "responseFormat"]

/** The checked config; paths are relative (`systemPrompt`, `responseFormat.type`). */
export interface Checked {
  readonly systemPrompt?: string | undefined
  readonly responseFormat?: InferenceRequest.ResponseFormat | undefined
}

const promptOf = (u: unknown): string | undefined => {
  if (u === undefined) return undefined
  if (typeof u !== "string") return invalid("systemPrompt", `expected a string, got ${Json.excerpt(u, 60)}`)
  return Json.withinMaxLength(u, (length, limit) =>
    invalid("systemPrompt", `a string of ${length} characters, past the limit of ${limit} (Json.maxStringLength)`))
}

const formatOf = (u: unknown): InferenceRequest.ResponseFormat | undefined => {
  if (u === undefined) return undefined
  const decoded = Codecs.decode(Codecs.ResponseFormat, u)
  if (Result.isSuccess(decoded)) return decoded.success
  const { path, message } = decoded.failure
  return invalid(path === "" ? "responseFormat" : `responseFormat.${path}`, message.replace(/^cannot decode [^:]+: /, ""))
}

/** Throws `HooklineError(InvalidConfiguration)` naming the field; a getter that throws is one too. */
export const check = (config: unknown): Checked => {
  let prompt: unknown
  let format: unknown
  try {
    // Inside: `Array.isArray` throws on a revoked Proxy.
    if (typeof config !== "object" || config === null || Array.isArray(config)) {
      return invalid("", `expected the context config (an object with systemPrompt, responseFormat), got ${Json.excerpt(config, 60)}`)
    }
    for (const key of Object.keys(config)) {
      if (!keys.includes(key)) invalid(key, `unknown option ${Json.excerpt(key, 60)}: expected one of ${keys.join(", ")}`)
    }
    prompt = (config as Record<string, unknown>)["systemPrompt"]
    format = (config as Record<string, unknown>)["responseFormat"]
  } catch (cause) {
    if (cause instanceof AgentError.HooklineError) throw cause
    return invalid("", `reading it threw: ${AgentError.messageOf(cause)}`)
  }
  return Object.freeze({ systemPrompt: promptOf(prompt), responseFormat: formatOf(format) })
}
