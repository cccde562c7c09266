/**
 * `node --conditions=@hookline/source --import tsx bench/src/cluster-kill.ts [kills] [runs]`:
 * the cluster bench's SIGKILL row alone, `kills` times (default 3) on one embedded
 * PostgreSQL, `runs` runs each (default 30), with the pause's parts: how old the victim's
 * last heartbeat was at the kill (its shards are free once it is a lock expiry old: the
 * expiry less that age after the kill), when the survivor held every shard, and when the
 * victim's runs in flight charged again there (a charge is logged 250 ms into its call).
 */
import { Settings } from "@hookline/cluster"
import { startPostgres } from "../../packages/store/test/support/postgres.js"
import { pauseAfterKill } from "./cluster.js"

const kills = Number(process.argv[2] ?? 3)
const runs = Number(process.argv[3] ?? 30)
const expiry = Settings.millisOf(Settings.defaults.lockExpiration)
const refresh = Settings.millisOf(Settings.defaults.assignmentsRefresh)

const server = await startPostgres()
try {
  console.log(`shipped settings: lock expiry ${expiry} ms, lock refresh ${Settings.millisOf(Settings.defaults.lockRefresh)} ms, assignments refresh ${refresh} ms; ms after the kill:`)
  console.log("heartbeat age | shards free | survivor holds all (free +) | runs charged again: min / median / max (holds all +, less the 250 ms) | runs")
  for (let i = 0; i < kills; i++) {
    const p = await pauseAfterKill(server.connectionString, { killRuns: runs }, `kill${i}`)
    const free = expiry - p.heartbeatAge
    console.log(
      `${p.heartbeatAge.toFixed(0).padStart(13)} | ${free.toFixed(0).padStart(11)} | ${p.acquired.toFixed(0).padStart(6)} (+${(p.acquired - free).toFixed(0)})` +
        ` | ${p.min.toFixed(0)} / ${p.median.toFixed(0)} / ${p.max.toFixed(0)} (+${(p.min - 250 - p.acquired).toFixed(0)} / +${(p.median - 250 - p.acquired).toFixed(0)} / +${(p.max - 250 - p.acquired).toFixed(0)})` +
        ` | ${p.moved} of ${p.runs}`,
    )
  }
} finally {
  await server.stop()
}
