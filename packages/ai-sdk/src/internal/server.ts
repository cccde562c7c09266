// Where an AI SDK model sends its calls, as the GenAI conventions' `server.address` and
// `server.port` (DriverShape.model.server), read once when the driver is made. The AI SDK
// has no public field for it; its HTTP providers keep it in the model's `config`: a
// `baseURL` string (Anthropic, Google) or a `url({ path, modelId })` function that joins
// the base URL and a path (OpenAI, OpenAI-compatible, most others). What is kept is the
// host and the port only: never the path or query (some providers put a key or a
// deployment there), never user and password. Any surprise (no config, a getter or a
// function that throws, not a string, not a URL) gives no server, never an error.
import type { Driver } from "@hookline/agent"

const maxLength = 2_048

const defaultPorts: Readonly<Record<string, number>> = { "https:": 443, "http:": 80 }

/** The host and port of a URL's text; `undefined` unless it is an http(s) URL. */
export const fromUrl = (text: unknown): Driver.ModelServer | undefined => {
  if (typeof text !== "string" || text.length > maxLength || !URL.canParse(text)) return undefined
  const url = new URL(text)
  const port = url.port === "" ? defaultPorts[url.protocol] : Number(url.port)
  if (port === undefined || url.hostname === "") return undefined
  // An IPv6 host comes bracketed ("[::1]"); the conventions write the address alone.
  const address = url.hostname.startsWith("[") && url.hostname.endsWith("]") ? url.hostname.slice(1, -1) : url.hostname
  return Object.freeze({ address, port })
}

/** The server of an AI SDK model object, when its provider's config names it. */
export const of = (model: object & { readonly modelId: string }): Driver.ModelServer | undefined => {
  try {
    const config = (model as { readonly config?: unknown }).config
    if (typeof config !== "object" || config === null) return undefined
    const { baseURL, url } = config as { readonly baseURL?: unknown; readonly url?: unknown }
    if (typeof baseURL === "string") return fromUrl(baseURL)
    // The providers' url() joins strings (no I/O): called with an empty path.
    return typeof url === "function" ? fromUrl(url({ path: "", modelId: model.modelId })) : undefined
  } catch {
    return undefined
  }
}
