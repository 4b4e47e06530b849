/** Locates the τ²-bench data beside the repository (`../shared/data/tau2`), or where TRACE_SHARED_DATA points. */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Directory holding `airline/`, `retail/`, `trajectories/` and `user_simulator/`. */
export function tau2DataDirectory(): string {
  const fromEnvironment = process.env.TRACE_SHARED_DATA;
  const directory = fromEnvironment ?? path.resolve(repositoryRoot, "../shared/data/tau2");
  if (!existsSync(directory)) {
    throw new Error(`τ²-bench data not found at ${directory} (set TRACE_SHARED_DATA to the shared/data/tau2 directory)`);
  }
  return directory;
}

/** Directory of one domain's `db.json`, `tasks.json` and `policy.md`. */
export function tau2DomainDirectory(domain: "airline" | "retail"): string {
  return path.join(tau2DataDirectory(), domain);
}

/** Directory of ToolSandbox's export (`../shared/data/toolsandbox`), or where TRACE_TOOLSANDBOX_DATA points. */
export function toolSandboxDataDirectory(): string {
  const directory = process.env.TRACE_TOOLSANDBOX_DATA ?? path.resolve(repositoryRoot, "../shared/data/toolsandbox");
  if (!existsSync(directory)) {
    throw new Error(`ToolSandbox data not found at ${directory} (set TRACE_TOOLSANDBOX_DATA to the shared/data/toolsandbox directory)`);
  }
  return directory;
}
