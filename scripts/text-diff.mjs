// Where two texts differ, for a failure message: the lines between their common start and
// their common end (one hunk, however many changes lie inside it), with a few lines of
// context before it. Used by the golden traces and the declarations check.

/** The changed span of two texts: its first line (1-based), the lines before it, the lines removed and added. */
export const changedSpan = (expected, actual, context = 3) => {
  const a = expected.split("\n")
  const b = actual.split("\n")
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  let j = 0
  while (j < a.length - i && j < b.length - i && a[a.length - 1 - j] === b[b.length - 1 - j]) j++
  return { line: i + 1, before: a.slice(Math.max(0, i - context), i), removed: a.slice(i, a.length - j), added: b.slice(i, b.length - j) }
}

/** The changed span as diff lines (`  ` context, `- ` removed, `+ ` added), at most `shown` of each side. */
export const diffLines = (expected, actual, { context = 3, shown = 8 } = {}) => {
  const span = changedSpan(expected, actual, context)
  const cut = (lines, sign) => [
    ...lines.slice(0, shown).map((l) => `${sign} ${l}`),
    ...(lines.length > shown ? [`${sign} … ${lines.length - shown} more lines`] : []),
  ]
  return [`@@ line ${span.line} @@`, ...span.before.map((l) => `  ${l}`), ...cut(span.removed, "-"), ...cut(span.added, "+")]
}
