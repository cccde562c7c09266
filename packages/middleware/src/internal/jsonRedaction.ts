// Redaction that keeps JSON JSON: inside a JSON value (a tool's output) and inside
// text that is a JSON document (a structured answer). A secret string becomes its
// redacted string and a secret number (a card number written as a number) becomes the
// marker as a string, so the value keeps its shape and the text still parses. Object
// keys are left alone: redacting two keys to one marker would merge them.
import { Json, type JsonValue } from "@hookline/core"

/** What to do with the scalars: the same value when nothing is secret. */
export interface Scalars {
  /** The redacted text of a string (plain text: the patterns). */
  readonly text: (text: string) => string
  /** The marker for a number written with these characters, when it is a secret. */
  readonly number: (lexeme: string) => string | undefined
}

type Container = ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

const isContainer = (u: JsonValue): u is Container => typeof u === "object" && u !== null

interface Frame {
  readonly node: Container
  readonly keys: ReadonlyArray<string> | undefined
  next: number
  copy: Array<JsonValue> | Record<string, JsonValue> | undefined
}

const frameOf = (node: Container): Frame => ({ node, keys: Array.isArray(node) ? undefined : Object.keys(node), next: 0, copy: undefined })

const sizeOf = (f: Frame): number => (f.keys === undefined ? (f.node as ReadonlyArray<JsonValue>).length : f.keys.length)

const keyAt = (f: Frame): string | number => (f.keys === undefined ? f.next : f.keys[f.next] as string)

// Copy on first write; a "__proto__" key stays an own data key.
const put = (f: Frame, key: string | number, value: JsonValue): void => {
  f.copy ??= f.keys === undefined ? [...(f.node as ReadonlyArray<JsonValue>)] : { ...(f.node as { readonly [key: string]: JsonValue }) }
  Object.defineProperty(f.copy, key, { value, enumerable: true, writable: true, configurable: true })
}

const scalar = (value: JsonValue, s: Scalars): JsonValue => {
  if (typeof value === "string") return redactText(value, s)
  if (typeof value === "number") return s.number(String(value)) ?? value
  return value
}

/**
 * The value with every string redacted and every secret number replaced by its marker,
 * keys left alone; the same reference when nothing changed, else new frozen parts.
 * Walked with an explicit stack, not recursion, down to `Json.maxDepth`: the depth
 * every JSON boundary accepts (a container at depth `maxDepth` or deeper is refused
 * where JSON enters, so no context holds one).
 */
export const redactValue = (root: JsonValue, s: Scalars): JsonValue => {
  if (!isContainer(root)) return scalar(root, s)
  const stack: Array<Frame> = [frameOf(root)]
  let done: JsonValue = root
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as Frame
    if (top.next < sizeOf(top)) {
      const key = keyAt(top)
      const child = (top.node as Record<string | number, JsonValue>)[key] as JsonValue
      // The child sits at depth `stack.length` (the root is at 0).
      if (isContainer(child) && stack.length < Json.maxDepth) {
        stack.push(frameOf(child))
        continue
      }
      const next = isContainer(child) ? child : scalar(child, s)
      if (next !== child) put(top, key, next)
      top.next++
      continue
    }
    stack.pop()
    const result = top.copy === undefined ? top.node : Object.freeze(top.copy)
    const parent = stack[stack.length - 1]
    if (parent === undefined) done = result
    else {
      if (result !== top.node) put(parent, keyAt(parent), result)
      parent.next++
    }
  }
  return done
}

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9

// The end of the string token that opens at `start` (one past its closing quote).
const stringEnd = (text: string, start: number): number => {
  let i = start + 1
  for (;;) {
    const c = text.charCodeAt(i)
    if (c === 34) return i + 1
    i += c === 92 ? 2 : 1
  }
}

const isNumberChar = (c: number): boolean => (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 69 || c === 101

// Text already known to be one JSON document: each string value and number token is
// redacted in place; keys, punctuation and spacing are kept as they are written.
const redactDocument = (text: string, s: Scalars): string => {
  let out = ""
  let copied = 0
  let i = 0
  const replace = (start: number, end: number, value: string) => {
    out += text.slice(copied, start) + JSON.stringify(value)
    copied = end
  }
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      const end = stringEnd(text, i)
      let after = end
      while (isSpace(text.charCodeAt(after))) after++
      if (text.charCodeAt(after) !== 58) {
        const value = JSON.parse(text.slice(i, end)) as string
        const next = redactText(value, s)
        if (next !== value) replace(i, end, next)
      }
      i = end
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      let end = i + 1
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++
      const marker = s.number(text.slice(i, end))
      if (marker !== undefined) replace(i, end, marker)
      i = end
    } else i++
  }
  return copied === 0 ? text : out + text.slice(copied)
}

// Whether the text is one JSON object or array (what a structured answer is).
const isDocument = (text: string): boolean => {
  let i = 0
  while (isSpace(text.charCodeAt(i))) i++
  const c = text.charCodeAt(i)
  if (c !== 123 && c !== 91) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

// The span inside one ``` fence (```json or bare) around the whole answer, trimmed:
// a superset of what the structured output reads as a fenced answer. Linear, no regex
// backtracking over a long answer.
const fenced = (text: string): readonly [number, number] | undefined => {
  const open = text.length - text.trimStart().length
  if (!text.startsWith("```", open)) return undefined
  const body = text.startsWith("```json", open) ? open + 7 : open + 3
  const close = text.trimEnd().length - 3
  if (close < body || !text.startsWith("```", close)) return undefined
  const inner = text.slice(body, close)
  const start = body + inner.length - inner.trimStart().length
  return [start, Math.max(start, close - (inner.length - inner.trimEnd().length))]
}

/**
 * The redacted text. A JSON object or array (alone, or inside one ```json fence: a
 * structured answer) is redacted value by value and stays valid JSON; anything else
 * is redacted as plain text.
 */
export const redactText = (text: string, s: Scalars): string => {
  if (isDocument(text)) return redactDocument(text, s)
  const span = fenced(text)
  if (span !== undefined) {
    const inner = text.slice(span[0], span[1])
    if (isDocument(inner)) {
      const next = redactDocument(inner, s)
      return next === inner ? text : text.slice(0, span[0]) + next + text.slice(span[1])
    }
  }
  return s.text(text)
}
