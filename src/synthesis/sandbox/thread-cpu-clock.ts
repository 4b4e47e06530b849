/** The CPU time of the calling thread, for the sandbox's per-call CPU budget. */
import { readFileSync } from "node:fs";

const schedstatPath = "/proc/thread-self/schedstat";
let available = process.platform === "linux";

/**
 * Milliseconds of CPU time the calling OS thread has used so far (Linux: the first field of
 * `/proc/thread-self/schedstat`, nanoseconds on the CPU), or `undefined` where the platform does not tell (then the
 * sandbox falls back to wall-clock time). Node has no per-thread CPU clock before 23.9 (`process.cpuUsage()` counts
 * every thread of the process). A read costs a few microseconds, so the sandbox only reads it in long calls.
 */
export function threadCpuMilliseconds(): number | undefined {
  if (!available) return undefined;
  try {
    const nanoseconds = Number(readFileSync(schedstatPath, "latin1").split(" ", 1)[0]);
    if (Number.isFinite(nanoseconds)) return nanoseconds / 1e6;
  } catch {
    // No procfs or no schedstat (a container without /proc, a kernel without CONFIG_SCHED_INFO).
  }
  available = false;
  return undefined;
}
