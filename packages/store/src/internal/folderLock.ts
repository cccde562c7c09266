// One owner per embedded store folder. PGlite runs PostgreSQL inside the process over
// the folder's files; nothing in it stops a second process (or a second store in this
// one) from opening the same files, and two PostgreSQL instances over one data folder
// each take the same lease, run the same tool and corrupt or hang each other. The owner
// holds a lock file in the folder, made atomically (a hard link, which fails when the
// name exists) with its pid in it; a holder that died (SIGKILL: no pid of that number
// is alive) leaves a stale lock the next opener takes over.
import { randomUUID } from "node:crypto"
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

export const lockFileName = "hookline.lock"

// The folders this process holds. Process-wide by nature, as the lock files are: a
// second store over a held folder in this process is refused as another process's is.
const held = new Set<string>()

export interface FolderLock {
  readonly path: string
  /** Removes the lock file if it is still this owner's; safe to call twice. */
  readonly release: () => void
}

const isCode = (cause: unknown, code: string): boolean => (cause as { code?: unknown } | undefined)?.code === code

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    // EPERM: alive, and another user's.
    return isCode(cause, "EPERM")
  }
}

interface Holder {
  readonly pid: number
  readonly token: string
}

// The lock file's holder; undefined when there is no lock file (released meanwhile).
const holderAt = (path: string): Holder | undefined => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (cause) {
    if (isCode(cause, "ENOENT")) return undefined
    throw cause
  }
  const [pid = "", token = ""] = text.split("\n")
  const n = Number(pid)
  // A file that holds no pid is no live owner's: written by hand, or cut short.
  return { pid: Number.isSafeInteger(n) && n > 0 ? n : 0, token }
}

const refusal = (folder: string, pid: number, path: string): Error =>
  new Error(
    pid === process.pid
      ? `the embedded store in ${folder} is open in this process already (pid ${pid}): one store per folder`
      : `the embedded store in ${folder} is open in process ${pid} (lock file ${path}): one process at a time; close it there, or remove the lock file if no process ${pid} uses the folder`,
  )

/** Takes the folder's lock, or throws naming the holder's pid. */
export const take = (folder: string): FolderLock => {
  const path = join(folder, lockFileName)
  const key = resolve(path)
  if (held.has(key)) throw refusal(folder, process.pid, path)
  const token = randomUUID()
  // Written whole before it is linked in: an opener never reads a lock half written.
  const draft = `${path}.${process.pid}.${token}`
  writeFileSync(draft, `${process.pid}\n${token}\n`, { flag: "wx" })
  try {
    // A few rounds: a holder may release, or another opener take over, in between.
    for (let round = 0; round < 5; round++) {
      try {
        linkSync(draft, path)
        held.add(key)
        let released = false
        return {
          path,
          release: () => {
            if (released) return
            released = true
            held.delete(key)
            try {
              if (holderAt(path)?.token === token) unlinkSync(path)
            } catch {
              // Gone already, or the folder with it: nothing to release.
            }
          },
        }
      } catch (cause) {
        if (!isCode(cause, "EEXIST")) throw cause
      }
      const holder = holderAt(path)
      if (holder === undefined) continue
      // This pid, not in `held`: a lock left by an earlier process that had this pid (a
      // container's pid 1 restarted), as stale as a dead one's.
      if (holder.pid !== 0 && holder.pid !== process.pid && alive(holder.pid)) throw refusal(folder, holder.pid, path)
      // Stale: move it aside (atomic: of two openers, one moves it), and look at what was
      // moved, in case another opener took over first and the fresh lock was moved.
      const aside = `${path}.stale.${process.pid}.${token}`
      try {
        renameSync(path, aside)
      } catch (cause) {
        if (isCode(cause, "ENOENT")) continue
        throw cause
      }
      const moved = holderAt(aside)
      if (moved?.token === holder.token) {
        unlinkSync(aside)
        continue
      }
      // Another opener's fresh lock: put it back, and leave the folder to it.
      try {
        linkSync(aside, path)
      } finally {
        unlinkSync(aside)
      }
      throw refusal(folder, moved?.pid ?? 0, path)
    }
    throw new Error(`the embedded store in ${folder}: its lock file ${path} changed hands five times while it was taken`)
  } finally {
    unlinkSync(draft)
  }
}
