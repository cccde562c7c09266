// The one check of a string against `maxStringLength` where a caller's value enters
// (a hook's name, a built-in's text, a context config's prompt): each place throws its
// own typed error naming its field, so the refusal is the caller's to make.
import { maxStringLength } from "./limits.js"

/** `s` itself when it holds at most `maxStringLength` characters, else what `refuse` throws for its length and the limit. */
export const withinMaxLength = (s: string, refuse: (length: number, limit: number) => never): string =>
  s.length > maxStringLength ? refuse(s.length, maxStringLength) : s
