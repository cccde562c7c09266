/**
 * Prints results as a Markdown pipe table whose columns are also aligned in a
 * terminal, so the output of a run can be pasted into docs/ as it is. Shared by
 * every benchmark of this package.
 */

/** One column: its header, how its cells align, and how a row gives its cell. */
export interface Column<Row> {
  readonly header: string
  readonly align?: "left" | "right" | undefined
  readonly cell: (row: Row) => string
}

const pad = (text: string, width: number, align: "left" | "right"): string =>
  align === "right" ? text.padStart(width) : text.padEnd(width)

/** The table as lines of text (header, separator, one line per row). */
export const render = <Row>(columns: ReadonlyArray<Column<Row>>, rows: ReadonlyArray<Row>): ReadonlyArray<string> => {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)))
  const widths = columns.map((column, i) => Math.max(column.header.length, 3, ...cells.map((line) => (line[i] ?? "").length)))
  const line = (texts: ReadonlyArray<string>): string =>
    `| ${texts.map((text, i) => pad(text, widths[i] ?? 0, columns[i]?.align ?? "left")).join(" | ")} |`
  const separator = `|${columns.map((column, i) => {
    const dashes = "-".repeat(widths[i] ?? 3)
    return column.align === "right" ? ` ${dashes.slice(1)}: ` : ` ${dashes} `
  }).join("|")}|`
  return [line(columns.map((column) => column.header)), separator, ...cells.map(line)]
}

/** Prints the table to stdout. */
export const print = <Row>(columns: ReadonlyArray<Column<Row>>, rows: ReadonlyArray<Row>): void => {
  for (const text of render(columns, rows)) console.log(text)
}

/** Nanoseconds with a precision that suits their size: 0.84, 12.3, 1,234. */
export const formatNs = (ns: number): string =>
  !Number.isFinite(ns)
    ? "n/a"
    : ns < 10
      ? ns.toFixed(2)
      : ns < 1000
        ? ns.toFixed(1)
        : Math.round(ns).toLocaleString("en-US")

/** A median with its p10..p90 spread: `12.3 (11.9–13.0)`. */
export const formatSpread = (s: { readonly p10: number; readonly p50: number; readonly p90: number }): string =>
  `${formatNs(s.p50)} (${formatNs(s.p10)}–${formatNs(s.p90)})`

/** A ratio such as `2.41x`. */
export const formatRatio = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(2)}x` : "n/a")

/** An integer with thousands separators. */
export const formatCount = (n: number): string => n.toLocaleString("en-US")
