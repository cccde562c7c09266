/**
 * The rows a section child (durable/, footprint/) prints: one line each on stdout, a
 * marker then JSON, as Result.ts does for the main table, so nothing a library prints
 * is taken for a row.
 */

const marker = "@@row "

export const format = (row: unknown): string => `${marker}${JSON.stringify(row)}`

export const parse = <A>(stdout: string): ReadonlyArray<A> =>
  stdout.split("\n").filter((line) => line.startsWith(marker)).map((line) => JSON.parse(line.slice(marker.length)) as A)

/** An error's stack, or its text. */
export const message = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e))
