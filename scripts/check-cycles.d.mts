// Types of check-cycles.mjs, for its test.
export type Graph = Map<string, ReadonlyArray<string>>
export declare const sourceFiles: (base?: string) => ReadonlyArray<string>
export declare const importGraph: (base?: string) => Graph
export declare const circlesOf: (graph: Graph) => ReadonlyArray<ReadonlyArray<string>>
export declare const check: (
  found: ReadonlyArray<ReadonlyArray<string>>,
  allowed: ReadonlyArray<ReadonlyArray<string>>,
) => { readonly ok: boolean; readonly lines: ReadonlyArray<string> }
