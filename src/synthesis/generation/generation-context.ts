/** What the generation agent is shown besides the capability: the SDK documentation and a worked example module. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CAPABILITY_ENVIRONMENTS } from "../environments/index.js";
import type { SynthesisTarget } from "../validation/target-tools.js";
import { targetDomain } from "../validation/target-tools.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const sourceRoot = path.resolve(here, "../../../src/synthesis");
const distRoot = path.resolve(here, "..");

/** The contract file's text (`src/envs/modules/capability-module.ts`; its declaration file when only `dist/` is installed). */
export function sdkDocumentation(): string {
  const source = path.join(sourceRoot, "../envs/modules/capability-module.ts");
  return readFileSync(existsSync(source) ? source : path.join(distRoot, "../envs/modules/capability-module.d.ts"), "utf8");
}

/** The source of a hand-written module for the target's domain (its compiled JavaScript when only `dist/` is installed). */
export function workedExample(target: SynthesisTarget, capability?: string): string {
  const domain = targetDomain(target);
  const candidates = CAPABILITY_ENVIRONMENTS.filter((entry) => entry.module.capability !== capability);
  const chosen = candidates.find((entry) => entry.domain === domain) ?? candidates[0] ?? CAPABILITY_ENVIRONMENTS[0];
  if (chosen === undefined) throw new Error("no hand-written capability environment to use as a worked example");
  const source = path.join(sourceRoot, "environments", chosen.file);
  return readFileSync(existsSync(source) ? source : path.join(distRoot, "environments", chosen.file.replace(/\.ts$/, ".js")), "utf8");
}

/** The source of the hand-written τ² module with this capability name, and its path (compiled JavaScript when only `dist/` is installed); undefined for any other name. */
export function handWrittenModuleSource(capability: string): { file: string; text: string } | undefined {
  const entry = CAPABILITY_ENVIRONMENTS.find((candidate) => candidate.module.capability === capability);
  if (entry === undefined) return undefined;
  const source = path.join(sourceRoot, "environments", entry.file);
  const file = existsSync(source) ? source : path.join(distRoot, "environments", entry.file.replace(/\.ts$/, ".js"));
  return { file, text: readFileSync(file, "utf8") };
}
