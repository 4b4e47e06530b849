/**
 * Stage 3, synthesize: each kept capability gets the hand-written environment the configuration maps it to, checked
 * (its ground-truth solution must reach reward 1 on the validation seeds) and recorded in `environments/<capability>/`
 * and `environments/index.json`. Kept capabilities without a mapping are reported and skipped.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CapabilitySelection } from "../analysis/aggregate-capabilities.js";
import { SELECTED_FILE } from "../analysis/analysis-directory.js";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import { playSolution } from "../synthesis/sdk/module-policies.js";
import { referenceAnalysisDirectory } from "./analyze-stage.js";
import { environmentIndexFile, handWrittenRunner, type CapabilityEnvironmentEntry, type EnvironmentIndex } from "./environment-index.js";
import type { PipelineContext } from "./pipeline-context.js";

/** The hand-written modules' TypeScript sources (present in a repository checkout, not in the published package). */
const SOURCES_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/synthesis/environments");

/** A ground-truth solution that does not reach reward 1: the environment is unusable. */
export class EnvironmentValidationError extends Error {
  override readonly name = "EnvironmentValidationError";
  constructor(
    readonly capability: string,
    readonly seed: number,
    readonly reward: number,
  ) {
    super(`environment of ${capability}: the ground-truth solution of seed ${seed} gets reward ${reward}, not 1`);
  }
}

/** Writes the environments of the kept capabilities; returns a one-line summary. */
export async function runSynthesizeStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const selected = JSON.parse(readFileSync(path.join(referenceAnalysisDirectory(config.runDirectory), SELECTED_FILE), "utf8")) as CapabilitySelection[];
  const index: EnvironmentIndex = { environments: [], unmapped: [] };
  for (const capability of selected) {
    const module = config.environments.map[capability.skill];
    if (module === undefined) {
      index.unmapped.push(capability.skill);
      context.log(`  ${capability.skill}: no environment configured (environments.map), skipped`);
      continue;
    }
    const runner = handWrittenRunner(capability.skill, module);
    const validation: CapabilityEnvironmentEntry["validation"] = [];
    for (const seed of config.environments.validationSeeds) {
      const verdict = await playSolution(runner, seed);
      if (verdict.reward !== 1) throw new EnvironmentValidationError(capability.skill, seed, verdict.reward);
      validation.push({ seed, reward: verdict.reward });
    }
    const entry: CapabilityEnvironmentEntry = { capability: capability.skill, description: capability.description, module, source: "hand-written", validation };
    const directory = path.join(config.runDirectory, "environments", capability.skill);
    mkdirSync(directory, { recursive: true });
    writeFileSync(path.join(directory, "environment.json"), JSON.stringify(entry, null, 2) + "\n");
    const file = CAPABILITY_ENVIRONMENTS.find((candidate) => candidate.module.capability === module)?.file;
    if (file !== undefined && existsSync(path.join(SOURCES_DIRECTORY, file))) copyFileSync(path.join(SOURCES_DIRECTORY, file), path.join(directory, "module.ts"));
    index.environments.push(entry);
    context.log(`  ${capability.skill}: hand-written ${module}, ground truth 1.0 on seeds ${config.environments.validationSeeds.join(", ")}`);
  }
  mkdirSync(path.dirname(environmentIndexFile(config.runDirectory)), { recursive: true });
  writeFileSync(environmentIndexFile(config.runDirectory), JSON.stringify(index, null, 2) + "\n");
  return `${index.environments.length} environments (${index.environments.map((entry) => `${entry.capability} → ${entry.module}`).join(", ") || "none"}); unmapped: ${index.unmapped.join(", ") || "none"}`;
}
