// The one check of a string against `maxStringLength` where a caller's value enters
// (a hook's name, a built-in's text, a context config's prompt): each place throws its
// own typed error naming its field, so the refusal is the caller's to make. A place
// that does not refuse (a function's own name, which falls back to `hook#<n>`) gives
// its fallback instead; `Json.withinMaxLength` keeps the throwing form.
import { maxStringLength } from "./limits.js"

/** `s` itself when it holds at most `maxStringLength` characters, else what `refuse` gives (throws, or a fallback) for its length and the limit. */
export const withinMaxLength = <R = never>(s: string, refuse: (length: number, limit: number) => R): string | R =>
  s.length > maxStringLength ? refuse(s.length, maxStringLength) : s
