/**
 * `npm run bench:difficulty [-- --model models/mini-v2-base --seeds 32 --samples 4 --seed-start 0 --temperature 0.7 --levels 0,2 --modules …]`: how a base
 * policy's reward moves with each TRACE-mini practice world's difficulty level — the premise of calibration's level
 * search (`calibrateDifficulty`: one level harder while the base does too well). For every practice module and every
 * level, the calibration statistics on the same seeds (a real worker on this machine, at calibration's default
 * temperature 0.7): mean reward with its standard error over seeds (the seeds' mean rewards vary far more than the samples
 * within one seed), success rate, constant and informative groups, and whether the reference's gate passes. One
 * markdown table; the pipeline calibrates on the first 16 seeds × 16 samples (GPU size) or 8 × 8 (CPU size).
 */
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { createChatClient } from "../models/chat-client.js";
import { practiceModulesNamed } from "../envs/mini/index.js";
import { atDifficulty, nativeModuleRunner } from "../envs/modules/module-runner.js";
import { calibrateModule } from "../synthesis/calibration/calibrate-module.js";
import { startWorker } from "../worker/worker-process.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "models/mini-v2-base" },
    seeds: { type: "string", default: "32" },
    samples: { type: "string", default: "4" },
    "seed-start": { type: "string", default: "0" },
    "max-tokens": { type: "string", default: "128" },
    "max-steps": { type: "string", default: "20" },
    concurrency: { type: "string", default: "32" },
    temperature: { type: "string", default: "0.7" },
    /** Only these levels (comma-separated; default every level). */
    levels: { type: "string" },
    /** Only these practice modules (comma-separated capabilities, variants included; default the three of the configurations). */
    modules: { type: "string" },
  },
});
const modules = practiceModulesNamed(values.modules);
const seedCount = Number.parseInt(values.seeds, 10);
const seedStart = Number.parseInt(values["seed-start"], 10);
const seeds = Array.from({ length: seedCount }, (_, index) => seedStart + index);
const samples = Number.parseInt(values.samples, 10);

const worker = await startWorker({ model: values.model, servedModelName: "base" });
try {
  const policy = createChatClient({ baseUrl: worker.baseUrl, model: "base", maxRetries: 1, maxConcurrency: 64, timeoutMs: 600_000, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
  const rows: string[][] = [["module", "level", "mean reward", "± se (seeds)", "success", "constant groups", "informative", "gate"]];
  for (const module of modules) {
    const runner = nativeModuleRunner(module);
    const levels = runner.difficulty?.levels ?? 1;
    const chosen = values.levels === undefined ? Array.from({ length: levels }, (_, level) => level) : values.levels.split(",").map(Number).filter((level) => level >= 0 && level < levels);
    for (const level of chosen) {
      const started = performance.now();
      const report = await calibrateModule({
        runner: runner.difficulty === undefined ? runner : atDifficulty(runner, level),
        policy,
        seeds,
        samples,
        sampling: { temperature: Number.parseFloat(values.temperature), maxTokens: Number.parseInt(values["max-tokens"], 10) },
        concurrency: Number.parseInt(values.concurrency, 10),
        maxSteps: Number.parseInt(values["max-steps"], 10),
      });
      const percent = (share: number) => `${(100 * share).toFixed(0)}%`;
      rows.push([
        module.capability,
        String(level),
        report.meanReward.toFixed(3),
        report.meanRewardStandardError.toFixed(3),
        percent(report.successRate),
        percent(report.constantFraction),
        percent(report.informativeFraction),
        report.passed ? "pass" : "fail",
      ]);
      console.error(`${module.capability} level ${level}: mean ${report.meanReward.toFixed(3)} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  }
  console.log(`\n${seedCount} seeds from ${seedStart} × ${samples} samples at temperature ${values.temperature}, base ${values.model}\n`);
  console.log(markdownTable(rows, { align: ["l", "r", "r", "r", "r", "r", "r", "l"] }));
} finally {
  await worker.stop();
}
