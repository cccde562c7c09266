// Lines of code per module under a folder: a report, not a test (issue 23 holds the
// modules of packages/agent/src/run/ under about 400 lines of code).
//
//   node scripts/module-sizes.mjs packages/agent/src                 every .ts file under it
//   node scripts/module-sizes.mjs packages/agent/src/run --max 400   marks the modules over 400
//   node scripts/module-sizes.mjs packages/core/src --json           as JSON
//
// "code" counts the lines that hold at least one token that is not a comment (TypeScript's
// own scanner decides, so a `//` inside a string is code); "lines" is the file's length;
// "comments" the lines with only a comment. With --max it says which modules are over and
// exits 0 all the same (add --strict to exit 1 then).
import { readdirSync, readFileSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { join, relative, sep } from "node:path"

const ts = createRequire(import.meta.url)("typescript")

const { SyntaxKind: K } = ts
const expressionEnds = new Set([K.Identifier, K.NumericLiteral, K.BigIntLiteral, K.StringLiteral, K.RegularExpressionLiteral, K.NoSubstitutionTemplateLiteral, K.TemplateTail, K.CloseParenToken, K.CloseBracketToken, K.CloseBraceToken, K.ThisKeyword, K.SuperKeyword, K.TrueKeyword, K.FalseKeyword, K.NullKeyword, K.PlusPlusToken, K.MinusMinusToken])
/** Whether a `/` after this token divides (an expression ended) rather than opening a regular expression. */
const endsExpression = (kind) => expressionEnds.has(kind)

/** { lines, code, comments } of one TypeScript text. */
export const sizeOf = (text) => {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text)
  const lineOf = (pos) => ts.computeLineAndCharacterOfPosition(starts, pos).line
  const starts = ts.computeLineStarts(text)
  const code = new Set()
  const comment = new Set()
  const templates = [] // the brace depth at each open template's `${`
  let braces = 0
  let previous = ts.SyntaxKind.Unknown
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const from = lineOf(scanner.getTokenStart())
    const to = lineOf(Math.max(scanner.getTokenStart(), scanner.getTokenEnd() - 1))
    const target = kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia
      ? comment
      : kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia
      ? undefined
      : code
    if (target !== undefined) for (let line = from; line <= to; line++) target.add(line)
    if (target !== code) continue
    // The scanner alone cannot tell a regular expression from a division, nor a template's
    // `}` from a block's: a `/` where no expression ended starts a regular expression, and
    // a `}` that closes a template's `${` goes on with the template.
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !endsExpression(previous)) {
      kind = scanner.reScanSlashToken()
    } else if (kind === ts.SyntaxKind.OpenBraceToken) braces++
    else if (kind === ts.SyntaxKind.TemplateHead) templates.push(braces)
    else if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (templates.length > 0 && templates[templates.length - 1] === braces) {
        kind = scanner.reScanTemplateToken(false)
        for (let line = from; line <= lineOf(scanner.getTokenEnd() - 1); line++) code.add(line)
        if (kind === ts.SyntaxKind.TemplateTail) templates.pop()
      } else braces--
    }
    previous = kind
  }
  const lines = text.length === 0 ? 0 : starts.length - (text.endsWith("\n") ? 1 : 0)
  let comments = 0
  for (const line of comment) if (!code.has(line)) comments++
  return { lines, code: code.size, comments }
}

const files = (dir) =>
  statSync(dir).isFile()
    ? [dir]
    : readdirSync(dir, { recursive: true })
      .map((f) => join(dir, f))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts") && statSync(f).isFile())
      .sort()

const main = () => {
  const args = process.argv.slice(2)
  const maxAt = args.indexOf("--max")
  const max = maxAt >= 0 ? Number(args[maxAt + 1]) : undefined
  const folders = args.filter((a, i) => !a.startsWith("--") && (maxAt < 0 || i !== maxAt + 1))
  if (folders.length === 0 || (max !== undefined && !Number.isFinite(max))) {
    console.error("usage: node scripts/module-sizes.mjs <folder or file>... [--max N] [--strict] [--json]")
    return 2
  }
  const rows = folders.flatMap(files).map((file) => ({ file: relative(process.cwd(), file).split(sep).join("/"), ...sizeOf(readFileSync(file, "utf8")) }))
  rows.sort((a, b) => b.code - a.code || (a.file < b.file ? -1 : 1))
  const over = max === undefined ? [] : rows.filter((r) => r.code > max)
  if (args.includes("--json")) {
    console.log(JSON.stringify({ max, rows, over: over.map((r) => r.file) }, null, 2))
  } else {
    const width = Math.max(6, ...rows.map((r) => r.file.length))
    console.log(`${"module".padEnd(width)}  ${"code".padStart(6)}  ${"lines".padStart(6)}  ${"comments".padStart(8)}`)
    for (const r of rows) {
      const flag = max !== undefined && r.code > max ? `  over ${max}` : ""
      console.log(`${r.file.padEnd(width)}  ${String(r.code).padStart(6)}  ${String(r.lines).padStart(6)}  ${String(r.comments).padStart(8)}${flag}`)
    }
    const total = rows.reduce((t, r) => ({ code: t.code + r.code, lines: t.lines + r.lines, comments: t.comments + r.comments }), { code: 0, lines: 0, comments: 0 })
    console.log(`${`${rows.length} modules`.padEnd(width)}  ${String(total.code).padStart(6)}  ${String(total.lines).padStart(6)}  ${String(total.comments).padStart(8)}`)
    if (max !== undefined) console.log(over.length === 0 ? `every module within ${max} lines of code` : `${over.length} module(s) over ${max} lines of code`)
  }
  return args.includes("--strict") && over.length > 0 ? 1 : 0
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split(sep).join("/"))) process.exitCode = main()
