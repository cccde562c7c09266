/**
 * Tool inputs nested too deep for the AI SDK. The SDK parses a tool call's input and
 * then copies it recursively (`structuredClone`): input nested 10,000 levels deep
 * overflows the stack there, and the whole call would fail. The model controls this
 * input, so it must get a `ToolArgumentsInvalid` it can correct instead: a middleware
 * holds such inputs back from the SDK (it sees `{}`) and the driver hands the model's
 * text on to the loop, whose boundary refuses it with that error.
 *
 * @internal
 */
import { Json } from "@hookline/core"
import type { LanguageModelMiddleware } from "ai"

// Deeper input is held back: hookline's own bound for tool arguments (core's).
const { maxDepth } = Json

/** Whether JSON text nests arrays and objects deeper than `maxDepth` (strings skipped). */
export const tooDeep = (text: string): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // a backslash escapes the next character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return true
    } else if (c === 125 || c === 93) depth--
  }
  return false
}

type Part = { readonly type: string; readonly toolCallId?: string; readonly input?: unknown }

/** A middleware that holds back too-deep tool inputs into `held` (tool call id to text). */
export const holdBack = (held: Map<string, string>): LanguageModelMiddleware => {
  const hold = <P extends Part>(part: P): P => {
    if (part.type !== "tool-call" || typeof part.input !== "string" || part.toolCallId === undefined || !tooDeep(part.input)) return part
    held.set(part.toolCallId, part.input)
    return { ...part, input: "{}" }
  }
  return {
    specificationVersion: "v3",
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate()
      return { ...result, content: result.content.map(hold) }
    },
    wrapStream: async ({ doStream }) => {
      const result = await doStream()
      return { ...result, stream: result.stream.pipeThrough(new TransformStream({ transform: (part, out) => out.enqueue(hold(part)) })) }
    },
  }
}

/** The arguments of a held-back call: the model's text parsed (the loop refuses them), or the text if it is not JSON. */
export const heldArguments = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}
