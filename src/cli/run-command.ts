/** `trace run CONFIG`: the whole pipeline from trajectories to a routed agent, resumable; prints the report. */
import { Option, type Command } from "commander";
import { loadPipelineConfig } from "../pipeline/pipeline-config.js";
import { PIPELINE_STAGES, runPipeline, type PipelineResult, type PipelineStage } from "../pipeline/run-pipeline.js";
import type { GrpoTrainer } from "../pipeline/capability-grpo.js";
import { addRunDirectoryOption } from "./run-directory-option.js";

/** Loads the configuration, runs the pipeline, prints progress and the report. */
async function runRunCommand(configFile: string, options: { runDir?: string; until?: PipelineStage; startOver?: boolean; trainer?: GrpoTrainer }, write: (line: string) => void): Promise<PipelineResult> {
  const config = loadPipelineConfig(configFile, options.runDir === undefined ? {} : { runDirectory: options.runDir });
  write(`trace run ${config.name}: run directory ${config.runDirectory}`);
  const result = await runPipeline({ config, log: write, ...(options.trainer === undefined ? {} : { trainer: options.trainer }), ...(options.until === undefined ? {} : { until: options.until }), startOver: options.startOver === true });
  write("");
  write(result.report.trimEnd());
  return result;
}

export function registerRunCommand(program: Command): void {
  const write = (line: string) => void process.stdout.write(line + "\n");
  const run = program
    .command("run")
    .description("base → rollout → analyze → synthesize → train → route → evaluate → compare from a JSON configuration; rerun to resume (finished stages are skipped)")
    .argument("<config>", "configuration file (see configs/offline-tiny.json)");
  addRunDirectoryOption(run, "the configuration's runDirectory, else runs/<name>")
    .addOption(new Option("--until <stage>", "stop after this stage (a later run resumes from the next)").choices(PIPELINE_STAGES))
    .option("--start-over", "delete what the run directory holds and start again (a run directory is only resumed with the same model, user and target)")
    .action(async (configFile: string, options: { runDir?: string; until?: PipelineStage; startOver?: boolean }) => {
      await runRunCommand(configFile, options, write);
    });
}
