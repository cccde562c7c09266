import { AgentError } from "../src/index.js"

// The AgentError that `f` throws as a HooklineError; fails the test otherwise.
export const caught = (f: () => unknown): AgentError.AgentError => {
  try {
    f()
  } catch (error) {
    if (error instanceof AgentError.HooklineError) return error.error
    throw error
  }
  throw new Error("expected a HooklineError")
}
