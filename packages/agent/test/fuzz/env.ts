// The fuzzers' settings from the environment (FUZZ_RUNS, FUZZ_SEED, FUZZ_PATH, ...): a
// variable that is unset or blank is not given.
export const env = (name: string): string | undefined => {
  const value = process.env[name]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}
