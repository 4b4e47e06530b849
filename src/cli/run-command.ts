/** `trace run CONFIG`: the whole pipeline from trajectories to a routed agent, resumable; prints the report. */
import type { Command } from "commander";
import { loadPipelineConfig } from "../pipeline/pipeline-config.js";
import { runPipeline, type PipelineResult } from "../pipeline/run-pipeline.js";
import type { GrpoTrainer } from "../pipeline/train-stage.js";

/** Loads the configuration, runs the pipeline, prints progress and the report. */
export async function runRunCommand(configFile: string, options: { runDir?: string; trainer?: GrpoTrainer }, write: (line: string) => void): Promise<PipelineResult> {
  const config = loadPipelineConfig(configFile, options.runDir === undefined ? {} : { runDirectory: options.runDir });
  write(`trace run ${config.name}: run directory ${config.runDirectory}`);
  const result = await runPipeline({ config, log: write, ...(options.trainer === undefined ? {} : { trainer: options.trainer }) });
  write("");
  write(result.report.trimEnd());
  return result;
}

export function registerRunCommand(program: Command): void {
  const write = (line: string) => void process.stdout.write(line + "\n");
  program
    .command("run")
    .description("rollout → analyze → synthesize → train → route → evaluate from a JSON configuration; rerun to resume (finished stages are skipped)")
    .argument("<config>", "configuration file (see configs/offline-tiny.json)")
    .option("--run-dir <dir>", "run directory (default: the configuration's runDirectory, else runs/<name>)")
    .action(async (configFile: string, options: { runDir?: string }) => {
      await runRunCommand(configFile, options, write);
    });
}
