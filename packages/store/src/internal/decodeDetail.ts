import type { AgentError } from "@hookline/core"

/** The detail of a codec's failure, without its "cannot decode <path>: " prefix. */
export const detailOf = (failure: AgentError.DecodeFailed): string => {
  const prefix = `cannot decode ${failure.path === "" ? "the root" : failure.path}: `
  return failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message
}
