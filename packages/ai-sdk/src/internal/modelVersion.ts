/**
 * The model check of `AiSdkDriver.make`: a model object must implement a specification
 * version the installed `ai` accepts. Otherwise every call would fail inside the SDK
 * (ai 6 answers a v4 model with "AI SDK 5 only supports … v2", naming neither hookline
 * nor the fix), so it is refused when the driver is made, before any call.
 *
 * @internal
 */
import { AgentError } from "@hookline/core"
import { major, modelVersions } from "./sdk.js"

const quoted = (versions: ReadonlyArray<string>) => versions.map((v) => JSON.stringify(v)).join(", ")

// The version as text for the message, bounded: it comes from someone else's object.
const shown = (version: unknown): string => {
  if (typeof version !== "string") return `no specification version (${version === undefined ? "undefined" : typeof version})`
  return `specification version ${JSON.stringify(version.length > 40 ? `${version.slice(0, 40)}…` : version)}`
}

// The model's own getter may throw (a proxy, a half-built object): that is its answer too.
const versionOf = (model: object): { readonly version: unknown } | { readonly threw: string } => {
  try {
    return { version: (model as { readonly specificationVersion?: unknown }).specificationVersion }
  } catch (error) {
    return { threw: AgentError.messageOf(error).slice(0, 200) }
  }
}

/** What is wrong with `model`, or `undefined` when the installed `ai` can drive it. */
export const problemOf = (model: unknown): string | undefined => {
  if (typeof model === "string") return undefined // a model id: the SDK's global provider resolves it
  if (typeof model !== "object" || model === null) return `a model must be an AI SDK LanguageModel object or a model id, got ${model === null ? "null" : typeof model}`
  const read = versionOf(model)
  if ("threw" in read) return `reading the model's specification version threw: ${read.threw}`
  const { version } = read
  if (typeof version === "string" && modelVersions.includes(version)) return undefined
  const fix = major === 6 && version === "v4"
    ? " A v4 model comes from an AI SDK 7 provider (@ai-sdk/* 4.x): install ai@7 (Node >= 22), or a provider of AI SDK 6 (@ai-sdk/* 3.x)."
    : ""
  return `@hookline/ai-sdk on ai ${major} drives models of specification versions ${quoted(modelVersions)}; this model has ${shown(version)}.${fix}`
}

/** Throws `HooklineError(InvalidConfiguration)` at `model` when the installed `ai` cannot drive it. */
export const check = (model: unknown): void => {
  const problem = problemOf(model)
  if (problem !== undefined) throw new AgentError.HooklineError(AgentError.invalidConfiguration("model", problem))
}
