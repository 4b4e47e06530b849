/**
 * `npm run bench:calibration [-- --model models/mini-v2-base --repeats 6 --rules 1:0,4:2 --seeds 16 --samples 16]`: how
 * reliably calibration places each TRACE-mini practice world. For every practice module and every rule (most rounds :
 * standard errors of evidence, `CalibrationOptions.rounds` and `standardErrors`; 1:0 is the reference's point estimate),
 * calibration (`calibrateDifficulty`, from the module's initial level, at calibration's default temperature 0.7) is
 * repeated on the same seeds against a real worker on this machine; sampling differs between repeats, so the chosen
 * level does too when a reading sits near an edge of the window. One markdown table: the chosen levels, the share of
 * repeats at the most common one, the first level's readings, and the episodes each calibration spent. `--out` also
 * writes every repeat as a JSON line.
 */
import { appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { createChatClient } from "../models/chat-client.js";
import { practiceModulesNamed } from "../envs/mini/index.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import { calibrateDifficulty } from "../synthesis/calibration/calibrate-module.js";
import { startWorker } from "../worker/worker-process.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "models/mini-v2-base" },
    repeats: { type: "string", default: "6" },
    rules: { type: "string", default: "1:0,4:2" },
    seeds: { type: "string", default: "16" },
    samples: { type: "string", default: "16" },
    modules: { type: "string" },
    parallel: { type: "string", default: "4" },
    "max-tokens": { type: "string", default: "128" },
    "max-steps": { type: "string", default: "20" },
    concurrency: { type: "string", default: "64" },
    temperature: { type: "string", default: "0.7" },
    out: { type: "string" },
  },
});
const repeats = Number.parseInt(values.repeats, 10);
const rules = values.rules.split(",").map((rule) => {
  const [rounds, standardErrors] = rule.split(":").map(Number);
  if (!Number.isInteger(rounds) || rounds === undefined || rounds < 1 || standardErrors === undefined || !(standardErrors >= 0)) throw new Error(`--rules: ${JSON.stringify(rule)} is not ROUNDS:STANDARD_ERRORS`);
  return { name: rule, rounds, standardErrors };
});
const seeds = Array.from({ length: Number.parseInt(values.seeds, 10) }, (_, index) => index);
const samples = Number.parseInt(values.samples, 10);
const modules = practiceModulesNamed(values.modules);

interface Repeat {
  module: string;
  rule: string;
  repeat: number;
  level: number | undefined;
  passed: boolean;
  tried: { level: number; meanReward: number; meanRewardStandardError: number; passed: boolean }[];
  firstReading: number;
  episodes: number;
  seconds: number;
}

const worker = await startWorker({ model: values.model, servedModelName: "base" });
try {
  const policy = createChatClient({ baseUrl: worker.baseUrl, model: "base", maxRetries: 1, maxConcurrency: 256, timeoutMs: 600_000, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
  const jobs = modules.flatMap((module) => rules.flatMap((rule) => Array.from({ length: repeats }, (_, repeat) => ({ module, rule, repeat }))));
  const results: Repeat[] = [];
  const parallel = Number.parseInt(values.parallel, 10);
  let next = 0;
  // A few calibrations in flight at once keep the worker's batches full; each calibration keeps its own concurrency.
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let job = jobs[next++]; job !== undefined; job = jobs[next++]) {
        const started = performance.now();
        let episodes = 0;
        const report = await calibrateDifficulty({
          runner: nativeModuleRunner(job.module),
          policy,
          seeds,
          samples,
          rounds: job.rule.rounds,
          standardErrors: job.rule.standardErrors,
          sampling: { temperature: Number.parseFloat(values.temperature), maxTokens: Number.parseInt(values["max-tokens"], 10) },
          concurrency: Number.parseInt(values.concurrency, 10),
          maxSteps: Number.parseInt(values["max-steps"], 10),
          onEpisode: () => (episodes += 1),
        });
        const tried = report.difficulty?.tried ?? [];
        const result: Repeat = { module: job.module.capability, rule: job.rule.name, repeat: job.repeat, level: report.difficulty?.level, passed: report.passed, tried, firstReading: tried[0]?.meanReward ?? report.meanReward, episodes, seconds: (performance.now() - started) / 1000 };
        results.push(result);
        if (values.out !== undefined) appendFileSync(values.out, `${JSON.stringify(result)}\n`);
        console.error(`${result.module} rule ${result.rule} repeat ${result.repeat}: level ${String(result.level)} (tried ${tried.map((entry) => `${entry.level}: ${entry.meanReward.toFixed(3)}`).join("; ")}), ${episodes} episodes, ${result.seconds.toFixed(0)} s`);
      }
    }),
  );
  const rows: string[][] = [["module", "rule (rounds:standard errors)", "repeats", "chosen levels", "at the most common level", "first level's readings (min–max)", "episodes per calibration", "s per calibration"]];
  for (const module of modules) {
    for (const rule of rules) {
      const group = results.filter((result) => result.module === module.capability && result.rule === rule.name);
      const counts = new Map<string, number>();
      for (const result of group) counts.set(String(result.level), (counts.get(String(result.level)) ?? 0) + 1);
      const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
      const readings = group.map((result) => result.firstReading);
      const average = (numbers: number[]) => numbers.reduce((sum, value) => sum + value, 0) / Math.max(1, numbers.length);
      rows.push([
        module.capability,
        rule.name,
        String(group.length),
        sorted.map(([level, count]) => `${level} ×${count}`).join(", "),
        `${(100 * (sorted[0]?.[1] ?? 0) / Math.max(1, group.length)).toFixed(0)}%`,
        `${Math.min(...readings).toFixed(3)}–${Math.max(...readings).toFixed(3)}`,
        average(group.map((result) => result.episodes)).toFixed(0),
        average(group.map((result) => result.seconds)).toFixed(0),
      ]);
    }
  }
  console.log(`\n${seeds.length} seeds × ${samples} samples per round at temperature ${values.temperature}, ${repeats} repeats, base ${values.model}\n`);
  console.log(markdownTable(rows, { align: ["l", "r", "r", "l", "r", "l", "r", "r"] }));
} finally {
  await worker.stop();
}
