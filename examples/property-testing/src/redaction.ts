// A redaction hook: on AfterToolUse, every secret (`sk-...`) in a tool's output is
// replaced with "[redacted]" before the result is committed and goes back to the model.
import { HookContext, HookTrigger, HookTriggers, type Hook, type HookStack, type JsonValue } from "@hookline/core"

/** Whether a text holds a secret. (No `g` flag: a global RegExp's `test` keeps state.) */
export const containsSecret = (text: string): boolean => /sk-[A-Za-z0-9-]+/.test(text)

/** A text with every secret replaced. */
export const redactText = (text: string): string => text.replace(/sk-[A-Za-z0-9-]+/g, "[redacted]")

/**
 * A JSON value with every secret replaced, in strings and in object keys (two keys
 * that redact to the same text merge: losing data beats leaking a secret). Parts with
 * no secret are kept as they are, so a value with none comes back itself.
 */
export const redactJson = (value: JsonValue): JsonValue => {
  if (typeof value === "string") return containsSecret(value) ? redactText(value) : value
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    const items = value.map(redactJson)
    return items.some((item, i) => item !== value[i]) ? items : value
  }
  const entries = Object.entries(value)
  const redacted = entries.map(([key, v]) => [redactText(key), redactJson(v)] as const)
  return redacted.some(([key, v], i) => key !== entries[i]![0] || v !== entries[i]![1]) ? Object.fromEntries(redacted) : value
}

/** The hook: rewrites a successful tool result that holds a secret; anything else passes unchanged. */
export const redactSecrets: Hook = (ctx) => {
  const execution = ctx.toolExecution
  if (execution?.status !== "success") return ctx
  const output = redactJson(execution.output)
  return output === execution.output ? ctx : HookContext.withToolResult(ctx, output)
}

/** How it is registered: after the tool ran, before the result is committed. */
export const redactSecretsOptions = {
  triggers: HookTriggers.of(HookTrigger.AfterToolUse),
  priority: 150, // the privacy range: before business logic and logging (docs/ordering.md)
  name: "privacy:redact_secrets",
} satisfies HookStack.HookOptions
