/**
 * The run context an agent declares (`UseRunContext`): checked at the start of each run,
 * before any hook reads it. Types are erased, so without a declaration the loop cannot
 * tell a forgotten `{ context }` from an agent that reads none.
 *
 * @internal
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { AgentError } from "@hookline/core"
import { Effect } from "effect"
import { isLeft } from "fp-ts/lib/Either.js"
import type * as t from "io-ts"
import { type ArgumentsError, fromResult, ioTsError, isPromiseLike, schemaProblem } from "./toolArguments.js"

/** What declares a run context: an io-ts codec or a Standard Schema (zod, valibot, Effect Schema). */
export type Schema<C> = t.Type<C, any, unknown> | StandardSchemaV1<unknown, C>

/** Decodes a run's context; fails with `InvalidConfiguration` at `context` or below it. */
export type Check = (context: unknown) => Effect.Effect<unknown, AgentError.InvalidConfiguration>

/** Whether a value can declare a run context; `undefined` when it can, else what is wrong. */
export const problemOf = (schema: unknown): string | undefined => schemaProblem(schema)

const refused = (given: unknown, error: ArgumentsError): AgentError.InvalidConfiguration =>
  given === undefined
    ? AgentError.invalidConfiguration(
      "context",
      "the agent declares a run context (UseRunContext) and none was given: pass it with each run, run(input, { context }) or resume(run, { context })",
    )
    : AgentError.invalidConfiguration(error.path === "" ? "context" : `context.${error.path}`, `the run context does not decode: ${error.message}`)

// The context carries credentials and is never stored, but this error is (in the run's
// errors): say what was expected, never what was given.
const withoutValue = (error: ArgumentsError): ArgumentsError => ({ path: error.path, message: error.message.replace(/, got [\s\S]*$/, "") })

// A schema that throws or rejects cannot vouch for the context: refused, not a defect.
const threw = (cause: unknown): ArgumentsError => ({ path: "", message: `its schema threw: ${AgentError.messageOf(cause)}` })

/** The check of a declared run context (`problemOf(schema)` is `undefined`). */
export const checkOf = (schema: Schema<unknown>): Check => {
  if ("~standard" in schema) {
    const standard = schema["~standard"]
    return (context) =>
      Effect.mapError(
        Effect.suspend(() => {
          let result: StandardSchemaV1.Result<unknown> | Promise<StandardSchemaV1.Result<unknown>>
          try {
            result = standard.validate(context)
          } catch (cause) {
            return Effect.fail(threw(cause))
          }
          return isPromiseLike(result)
            ? Effect.flatMap(Effect.tryPromise({ try: () => result, catch: threw }), fromResult)
            : fromResult(result)
        }),
        // A schema's own message may quote the value (zod's "received"): only where it failed.
        (error) => refused(context, { path: error.path, message: "the schema refused it" }),
      )
  }
  return (context) =>
    Effect.suspend(() => {
      let result: t.Validation<unknown>
      try {
        result = schema.decode(context)
      } catch (cause) {
        return Effect.fail(refused(context, threw(cause)))
      }
      return isLeft(result) ? Effect.fail(refused(context, withoutValue(ioTsError(result.left)))) : Effect.succeed(result.right)
    })
}
