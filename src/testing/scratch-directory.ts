/** Test support: temporary directories that are removed when the test process exits, so test runs leave nothing in /tmp. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const created: string[] = [];
let cleanupRegistered = false;

/** A fresh directory under the system's temporary directory, named `prefix` + random, removed at process exit. */
export function scratchDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(directory);
  if (!cleanupRegistered) {
    cleanupRegistered = true;
    process.on("exit", () => {
      for (const entry of created) rmSync(entry, { recursive: true, force: true });
    });
  }
  return directory;
}
