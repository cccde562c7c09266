// A custom interceptor is opaque to the loop: a HookStack it runs inside has its
// before/after hooks run, but its wrap hooks (which hold the model call and the tool
// execution, not a trigger) are run by the loop, which only sees the stack the
// interceptor declares (`Interceptor.around`). So the loop tells the stacks it reaches
// through a custom interceptor which stack's wraps it runs (`null`: none), and a stack
// with wrap hooks that are not the ones run refuses to run: losing them would be silent.
import { Context } from "effect"
import { HooklineError, invalidConfiguration } from "../AgentError.js"

/**
 * Under a loop's custom interceptor, the stack whose wrap hooks the loop runs (`null`:
 * none); `undefined` elsewhere.
 */
export const LoopWraps = Context.Reference<object | null | undefined>("@hookline/core/LoopWraps", { defaultValue: () => undefined })

// The errors `lostWraps` made: a programmer error the loop lets through a custom
// interceptor as it is (anything else the interceptor throws is its failure), known by
// identity so an interceptor cannot pass one off.
const made = new WeakSet<object>()

/** Whether `cause` is an error `lostWraps` made. */
export const isLostWraps = (cause: unknown): boolean => typeof cause === "object" && cause !== null && made.has(cause)

/** The configuration error of a stack whose wrap hooks (`names`) the loop would not run. */
export const lostWraps = (names: ReadonlyArray<string>): HooklineError => {
  const error = new HooklineError(invalidConfiguration(
    "interceptor",
    `a custom interceptor runs a HookStack with wrap hooks (${names.join(", ")}) that the loop cannot see, so they would never run: `
      + "build the interceptor with Interceptor.around(stack, (ctx, next) => ...), or give the loop the stack itself",
  ))
  made.add(error)
  return error
}
