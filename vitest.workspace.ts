// The projects vitest runs; vitest 4 reads this list through vitest.config.ts.
// bench/ holds one test: the smoke of the comparison (it validates, it times nothing).
export default ["packages/*/vitest.config.ts", "examples/*/vitest.config.ts", "bench/vitest.config.ts", "scripts/vitest.config.ts"]
