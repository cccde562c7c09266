/**
 * The interleaved A/B loop bench (issue 23): the loop workload of `pnpm bench loop` (W1,
 * internal path; worker.ts) run against two built trees in one sitting on one machine,
 * A, B, A, B, …, each run a fresh process, and the ratio B/A of each round's medians
 * reported as its median and its range. Interleaving puts both sides under the same drift
 * of a shared machine; the range says how far one round can be trusted.
 *
 *   npx tsx bench/src/ab/ab.ts --base main                 A = a git worktree of main, B = this tree
 *   npx tsx bench/src/ab/ab.ts --base <commit> --quick     3 short rounds (indicative, light on CPU)
 *   npx tsx bench/src/ab/ab.ts --base <dir> --head <dir>   two trees already built
 *   options: --rounds N, --clean (remove the base worktree afterwards)
 *
 * A base given as a git revision is checked out with `git worktree add --detach` under the
 * system's temp folder (hookline-ab-<sha>), installed offline from the pnpm store and its
 * core and agent built (JS only, tsup); it is kept for the next run unless --clean. The
 * head's core and agent are rebuilt when their src is newer than their dist.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { cases, median } from "./worker.js"

const repo = fileURLToPath(new URL("../../..", import.meta.url))
const worker = fileURLToPath(new URL("./worker.ts", import.meta.url))
const pnpm = ["-y", "pnpm@10.34.9"]

const argument = (name: string): string | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  return at < 0 ? undefined : process.argv[at + 1]
}
const flag = (name: string): boolean => process.argv.includes(`--${name}`)

const quick = flag("quick")
const rounds = Number(argument("rounds") ?? (quick ? 3 : 8))
const warmMs = quick ? 200 : 1_000
const timeMs = quick ? 600 : 3_000
const log = (line: string): void => void process.stderr.write(`${line}\n`)
const run = (cmd: string, args: ReadonlyArray<string>, cwd: string): void => {
  log(`$ ${cmd} ${args.join(" ")}   (in ${cwd})`)
  execFileSync(cmd, args, { cwd, stdio: ["ignore", "inherit", "inherit"] })
}

const newest = (dir: string): number =>
  readdirSync(dir, { recursive: true }).reduce<number>((m, f) => {
    const s = statSync(join(dir, String(f)))
    return s.isFile() ? Math.max(m, s.mtimeMs) : m
  }, 0)

/** Builds a tree's core and agent (JS only) when their dist is missing or older than their src. */
const buildIfStale = (tree: string): void => {
  for (const pkg of ["core", "agent"]) {
    const dir = join(tree, "packages", pkg)
    const built = join(dir, "dist", "index.js")
    if (!existsSync(built) || newest(join(dir, "src")) > statSync(built).mtimeMs) run("npx", ["tsup"], dir)
  }
}

/** A directory holding a tree, or a git revision checked out in a worktree of its own; built. */
const prepare = (spec: string): string => {
  if (existsSync(join(resolve(spec), "packages", "agent"))) {
    buildIfStale(resolve(spec))
    return resolve(spec)
  }
  const sha = execFileSync("git", ["rev-parse", "--verify", `${spec}^{commit}`], { cwd: repo, encoding: "utf8" }).trim()
  const dir = join(tmpdir(), `hookline-ab-${sha.slice(0, 12)}`)
  if (!existsSync(join(dir, ".ab-ready"))) {
    if (!existsSync(dir)) run("git", ["worktree", "add", "--detach", dir, sha], repo)
    try {
      run("npx", [...pnpm, "install", "--frozen-lockfile", "--offline"], dir)
    } catch {
      run("npx", [...pnpm, "install", "--frozen-lockfile"], dir)
    }
    buildIfStale(dir)
    writeFileSync(join(dir, ".ab-ready"), `${sha}\n`)
  }
  return dir
}

type Result = Record<string, { readonly usPerStep: number; readonly cpuUsPerStep: number; readonly runs: number }>

const measure = (tree: string): Result => {
  const out = spawnSync(process.execPath, ["--import", "tsx", worker, tree, String(warmMs), String(timeMs)], { cwd: repo, encoding: "utf8" })
  if (out.status !== 0) throw new Error(`the worker failed on ${tree}:\n${out.stderr}`)
  return (JSON.parse(out.stdout.trim().split("\n").at(-1) as string) as { result: Result }).result
}

const fmt = (x: number, digits = 2): string => x.toFixed(digits)

const main = (): void => {
  const baseSpec = argument("base") ?? "main"
  const headSpec = argument("head") ?? repo
  const a = prepare(baseSpec)
  const b = prepare(headSpec)
  log(`A = ${baseSpec} (${a})\nB = ${headSpec} (${b})\n${rounds} rounds of A then B, ${warmMs} ms warm-up and ${timeMs} ms per side and case`)
  const sides = { a: [] as Array<Result>, b: [] as Array<Result> }
  for (let r = 0; r < rounds; r++) {
    sides.a.push(measure(a))
    sides.b.push(measure(b))
    log(`  round ${r + 1}/${rounds} (A / B, CPU µs per step): ${cases.map((c) => `${c.name} ${fmt(sides.a[r]![c.name]!.cpuUsPerStep)} / ${fmt(sides.b[r]![c.name]!.cpuUsPerStep)}`).join("; ")}`)
  }
  console.log(`# interleaved A/B of the agent loop (W1, internal path; ${rounds} rounds${quick ? ", --quick: indicative" : ""})`)
  console.log("")
  console.log(
    `A = ${baseSpec}, B = ${headSpec === repo ? "this tree" : headSpec}; µs per step: median over the rounds; B/A: the median of the rounds' ratios (min–max in brackets); ` +
      "wall: each round's median run by the clock; CPU: each round's median run by the process's user + system time (which other processes on the machine inflate less)",
  )
  console.log("")
  console.log("| case | A wall | B wall | B/A wall | A CPU | B CPU | B/A CPU | within ±5% (CPU) |")
  console.log("| :-- | --: | --: | --: | --: | --: | --: | :-- |")
  const summary = (key: "usPerStep" | "cpuUsPerStep", name: string) => {
    const as = sides.a.map((s) => s[name]![key])
    const bs = sides.b.map((s) => s[name]![key])
    const ratios = as.map((x, i) => (bs[i] as number) / x)
    return { a: median([...as]), b: median([...bs]), ratio: median([...ratios]), min: Math.min(...ratios), max: Math.max(...ratios) }
  }
  for (const c of cases) {
    const wall = summary("usPerStep", c.name)
    const cpu = summary("cpuUsPerStep", c.name)
    console.log(
      `| ${c.name} | ${fmt(wall.a)} | ${fmt(wall.b)} | ${fmt(wall.ratio, 3)} (${fmt(wall.min, 3)}–${fmt(wall.max, 3)}) | ${fmt(cpu.a)} | ${fmt(cpu.b)} | ${
        fmt(cpu.ratio, 3)
      } (${fmt(cpu.min, 3)}–${fmt(cpu.max, 3)}) | ${Math.abs(cpu.ratio - 1) <= 0.05 ? "yes" : "no"} |`,
    )
  }
  if (flag("clean") && a.startsWith(join(tmpdir(), "hookline-ab-"))) {
    run("git", ["worktree", "remove", "--force", a], repo)
    rmSync(a, { recursive: true, force: true })
  } else if (a.startsWith(join(tmpdir(), "hookline-ab-"))) log(`(the base tree stays at ${a} for the next run; remove it with: git worktree remove --force ${a})`)
}

main()
