/** `trace compare RUN`: the methods of a finished (or partly finished) run under one rollout budget; writes the tables and curves. */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { COMPARE_METHODS, type CompareMethod } from "../compare/compare-methods.js";
import { poolComparisons } from "../compare/pool-comparisons.js";
import { runCompare } from "../compare/run-compare.js";
import { compareConfigSchema, loadPipelineConfig } from "../pipeline/pipeline-config.js";
import { createPipelineContext } from "../pipeline/pipeline-context.js";
import { openRunDirectory } from "../run/run-directory.js";
import type { GrpoTrainer } from "../pipeline/capability-grpo.js";
import { runGrpo } from "../training/run-grpo.js";
import { UsageError } from "./usage-error.js";
import { addRunDirectoryArgument } from "./run-directory-option.js";

function methodList(value: string): CompareMethod[] {
  const methods = value.split(",").map((method) => method.trim()).filter((method) => method !== "");
  for (const method of methods) if (!(COMPARE_METHODS as readonly string[]).includes(method)) throw new UsageError(`--methods: unknown method ${JSON.stringify(method)} (known: ${COMPARE_METHODS.join(", ")})`);
  if (methods.length === 0) throw new UsageError("--methods: name at least one method");
  return methods as CompareMethod[];
}

function seedList(value: string): number[] {
  const seeds = value.split(",").map((seed) => Number(seed.trim()));
  for (const seed of seeds) if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seeds: ${JSON.stringify(value)} is not a comma-separated list of non-negative integers`);
  return seeds;
}

/** Runs the comparison of the run in `runDirectory`. */
export async function runCompareCommand(runDirectory: string, options: { methods?: string; seeds?: string; trainer?: GrpoTrainer }, write: (line: string) => void): Promise<string[]> {
  const configFile = openRunDirectory(runDirectory).configFile;
  if (!existsSync(configFile)) throw new UsageError(`${runDirectory} is not a run directory (no config.json; start it with \`trace run CONFIG\`)`);
  const loaded = loadPipelineConfig(configFile, { runDirectory });
  const compare = loaded.compare ?? compareConfigSchema.parse({});
  const methods = options.methods === undefined ? compare.methods : methodList(options.methods);
  const seeds = options.seeds === undefined ? compare.seeds : seedList(options.seeds);
  const config = { ...loaded, compare: { ...compare, methods, seeds } };
  const context = createPipelineContext(config, write);
  try {
    write(`trace compare ${config.name}: ${methods.join(", ")} × seeds ${seeds.join(", ")}`);
    const written = await runCompare({ context, trainer: options.trainer ?? runGrpo, methods, seeds });
    for (const file of written) write(`wrote ${file}`);
    return written;
  } finally {
    await context.close();
  }
}

export function registerCompareCommand(program: Command): void {
  const write = (line: string) => void process.stdout.write(line + "\n");
  addRunDirectoryArgument(
    program
      .command("compare")
      .description("train and evaluate the baselines and TRACE of a `trace run` run (its config.json and capability environments) at an equal rollout budget; writes compare/comparison.md, CSVs and curves"),
  )
    .option("--methods <list>", `comma-separated, of: ${COMPARE_METHODS.join(", ")} (default: the configuration's compare.methods, else all)`)
    .option("--seeds <list>", "comma-separated training seeds (default: the configuration's compare.seeds, else 0)")
    .action(async (runDirectory: string, options: { methods?: string; seeds?: string }) => {
      await runCompareCommand(runDirectory, options, write);
    });
}

/** Pools the comparisons of `runDirectories` into one report in `outDirectory`. */
export async function runPoolCommand(runDirectories: readonly string[], options: { out: string }, write: (line: string) => void): Promise<string[]> {
  const { files, replicates, splits } = await poolComparisons(runDirectories, options.out);
  write(`trace pool: ${runDirectories.length} runs, ${replicates.length} replicates (${replicates.map((replicate) => `${replicate.replicate} = ${replicate.runDirectory} seed ${replicate.seed}`).join("; ")}), ${splits.length} evaluation split${splits.length === 1 ? "" : "s"}`);
  for (const file of files) write(`wrote ${file}`);
  return files;
}

export function registerPoolCommand(program: Command): void {
  const write = (line: string) => void process.stdout.write(line + "\n");
  program
    .command("pool")
    .description("one comparison report over several runs' comparisons (the same design on several evaluation splits, or seeds spread over runs): every (run, seed) a replicate, TRACE paired with each method within it")
    .argument("<runs...>", "run directories with compare/ results")
    .requiredOption("--out <dir>", "directory for the pooled comparison.md, CSVs and curves")
    .action(async (runDirectories: string[], options: { out: string }) => {
      await runPoolCommand(runDirectories, options, write);
    });
}
