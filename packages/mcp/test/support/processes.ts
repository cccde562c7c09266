// Whether a process still runs, by pid: a zombie (exited, not yet reaped by its parent)
// counts as gone, since it runs nothing and holds nothing but its table entry.
import { readFileSync } from "node:fs"

export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
  try {
    // /proc/<pid>/stat: "pid (comm) S ..."; the state follows the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return process.platform !== "linux"
  }
}

/** Ends a process a failed test may have left, so that it does not outlive the test run. */
export const killLeft = (pid: number | undefined): void => {
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 1) return
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // already gone
  }
}

/** Waits until `ready` holds, checking every 10 ms (no deadline: the test's own timeout is one). */
export const until = async (ready: () => boolean): Promise<void> => {
  while (!ready()) await new Promise((resolve) => setTimeout(resolve, 10))
}
