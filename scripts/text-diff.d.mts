// Types of text-diff.mjs, for the tests that import it.
export declare const changedSpan: (
  expected: string,
  actual: string,
  context?: number,
) => { readonly line: number; readonly before: ReadonlyArray<string>; readonly removed: ReadonlyArray<string>; readonly added: ReadonlyArray<string> }
export declare const diffLines: (expected: string, actual: string, options?: { readonly context?: number; readonly shown?: number }) => ReadonlyArray<string>
