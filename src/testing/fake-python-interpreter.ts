/** Test support: writes an executable that plays the Python interpreter by running `fake-worker-python.js` with node. */
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const fakeWorker = path.join(path.dirname(fileURLToPath(import.meta.url)), "fake-worker-python.js");

/** Creates `<directory>/python` and returns its path. */
export function writeFakePythonInterpreter(directory: string): string {
  const file = path.join(directory, "python");
  writeFileSync(file, `#!/bin/sh\nexec "${process.execPath}" "${fakeWorker}" "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}
