// The projects vitest runs; vitest 4 reads this list through vitest.config.ts.
export default ["packages/*/vitest.config.ts", "examples/*/vitest.config.ts"]
