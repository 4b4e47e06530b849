/**
 * `npm run bench:probe [-- --model models/mini-v2-base --module mini_multi_step_completion --level 1 --iterations 8 --probes 32]`:
 * how far the sampler's and the trainer's logprobs drift apart while GRPO trains an adapter, against how far apart a
 * stale adapter puts them — the evidence for the sync probe's tolerance (`src/training/logprob-probe.ts`). GRPO
 * (`runGrpo`, the pipeline's GRPO-size settings) trains one adapter on a TRACE-mini practice world against a real
 * worker; after every sync `--probes` probes (seeds 0…, the pipeline's probe: 8 tokens at temperature 1) are read in
 * four ways: the worker sampling the trainer's adapter, all probes at once (batched) and one at a time; a saved and
 * loaded copy of the adapter (the separate-sampler path, in sync); and the copy saved one iteration earlier (a stale
 * sampler) — each on two prompts side by side: "Say hello." (the probe's default) and the prefixes of the step's own
 * rollouts that GRPO hands the probe (`probeConversations`). One markdown table row per step, way and prompt: the largest and the 99th-percentile |difference|,
 * the tokens beyond the default tolerance, the probes with at least one (the rule before the twelfth session: one
 * probe, one token), and the sets of 8 probes with at least two, counted per probe (the twelfth session's rule) and
 * as distinct readings (the probe's rule since the thirteenth). `--out` writes every token as a JSON line.
 */
import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { createChatClient } from "../models/chat-client.js";
import { practiceModulesNamed } from "../envs/mini/index.js";
import { createModuleEnvironment } from "../envs/modules/module-environment.js";
import { atDifficulty, nativeModuleRunner } from "../envs/modules/module-runner.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { AdapterSync } from "../training/adapter-sync.js";
import { DEFAULT_PROBE_CONVERSATION, distinctReadings, isBeyondTolerance, measureProbe, worstProbeToken, type ProbeConversation, type ProbeToken } from "../training/logprob-probe.js";
import { runGrpo } from "../training/run-grpo.js";
import { startWorker } from "../worker/worker-process.js";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "models/mini-v2-base" },
    module: { type: "string", default: "mini_multi_step_completion" },
    level: { type: "string", default: "1" },
    iterations: { type: "string", default: "8" },
    groups: { type: "string", default: "4" },
    samples: { type: "string", default: "16" },
    "learning-rate": { type: "string", default: "0.001" },
    rank: { type: "string", default: "16" },
    probes: { type: "string", default: "32" },
    "max-tokens": { type: "string", default: "128" },
    "max-steps": { type: "string", default: "20" },
    concurrency: { type: "string", default: "64" },
    out: { type: "string" },
  },
});
const integer = (name: keyof typeof values) => Number.parseInt(String(values[name]), 10);
const module = practiceModulesNamed(values.module)[0]!;
const runner = atDifficulty(nativeModuleRunner(module), integer("level"));
const probeSeeds = Array.from({ length: integer("probes") }, (_, index) => index);
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-probe-noise-"));

interface Reading {
  step: number;
  way: string;
  prompt: string;
  probes: ProbeToken[][];
}
const readings: Reading[] = [];

const worker = await startWorker({ model: values.model, servedModelName: "base" });
try {
  const trainer = worker.trainerClient();
  const chat = createChatClient({ baseUrl: worker.baseUrl, model: "base", maxRetries: 1, maxConcurrency: 128, timeoutMs: 600_000, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
  const adapter = "probe-noise";
  const batched = (model: string, conversations: readonly ProbeConversation[]) => measureProbe({ chat, trainer, adapter, model, conversations, probes: probeSeeds.length });
  const oneAtATime = async (model: string, conversations: readonly ProbeConversation[]) => {
    const probes: ProbeToken[][] = [];
    for (const seed of probeSeeds) probes.push(...(await measureProbe({ chat, trainer, adapter, model, conversations, seed, probes: 1 })));
    return probes;
  };
  let previousCopy: string | undefined;
  const sync: AdapterSync = {
    async sync(step, rollouts) {
      const started = performance.now();
      // The initial sync has no rollouts yet: only "Say hello." is read there.
      const prompts: [string, readonly ProbeConversation[]][] = [["Say hello.", [DEFAULT_PROBE_CONVERSATION]]];
      if (rollouts !== undefined && rollouts.length > 0) prompts.push([`the step's rollouts (${rollouts.length})`, rollouts]);
      const copy = `${adapter}-v${step}`;
      const copyPath = path.join(scratch, copy);
      await trainer.saveAdapter({ adapter, path: copyPath });
      await trainer.loadLoraAdapter({ loraName: copy, loraPath: copyPath });
      let largest = 0;
      for (const [prompt, conversations] of prompts) {
        const live = await batched(adapter, conversations);
        largest = live.flat().reduce((most, token) => Math.max(most, token.difference), largest);
        readings.push({ step, prompt, way: "worker samples the adapter, probes batched", probes: live });
        readings.push({ step, prompt, way: "worker samples the adapter, one at a time", probes: await oneAtATime(adapter, conversations) });
        readings.push({ step, prompt, way: "a loaded copy, in sync", probes: await batched(copy, conversations) });
        if (previousCopy !== undefined) readings.push({ step, prompt, way: "the copy of the step before (stale)", probes: await batched(previousCopy, conversations) });
      }
      if (previousCopy !== undefined) await trainer.unloadLoraAdapter({ loraName: previousCopy });
      previousCopy = copy;
      console.error(`step ${step}: probes read in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      return { model: adapter, probeDifference: largest };
    },
  };
  const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: 400 }, (_, index) => index), name: `probe-${module.capability}` });
  await runGrpo({
    environment,
    makeUser: (task) => createInstanceUser(environment.instance(task)),
    capability: module.capability,
    trainer,
    sampler: chat,
    sync,
    adapter,
    adapterConfig: { rank: integer("rank") },
    adaptersDirectory: path.join(scratch, "adapters"),
    iterations: integer("iterations"),
    groups: integer("groups"),
    samples: integer("samples"),
    learningRate: Number.parseFloat(values["learning-rate"]),
    temperature: 1,
    maxTokens: integer("max-tokens"),
    maxSteps: integer("max-steps"),
    concurrency: integer("concurrency"),
    mechanisms: { hints: { share: 0 } },
    checkpointEvery: 1000,
    onIteration: (metrics) => console.error(`iteration ${metrics.iteration}: mean reward ${metrics.rewardMean.toFixed(3)}, approximate KL ${metrics.approxKl?.toFixed(4) ?? "-"}`),
  });
} finally {
  await worker.stop();
  rmSync(scratch, { recursive: true, force: true });
}

const quantile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN;
const SET = 8;
const rows: string[][] = [
  ["step", "prompt", "way", "tokens (distinct)", "max |difference|", "99th percentile", "median", "tokens beyond tolerance (distinct)", "probes with one", `sets of ${SET} probes with ≥ 2, counted per probe`, `… ≥ 2 distinct (the rule)`, "worst (difference at logprob)"],
];
for (const reading of readings) {
  const tokens = reading.probes.flat();
  const differences = tokens.map((token) => token.difference).sort((a, b) => a - b);
  const beyond = tokens.filter(isBeyondTolerance).length;
  const distinct = distinctReadings(tokens);
  const failing = reading.probes.filter((probe) => probe.some(isBeyondTolerance)).length;
  // The probe's rule (LogprobProbeOptions defaults): consecutive sets of 8 probes, a mismatch at 2 distinct readings beyond.
  const sets = Array.from({ length: Math.floor(reading.probes.length / SET) }, (_, set) => reading.probes.slice(set * SET, (set + 1) * SET).flat());
  const worst = worstProbeToken(tokens);
  rows.push([
    String(reading.step),
    reading.prompt,
    reading.way,
    `${tokens.length} (${distinct.length})`,
    (differences.at(-1) ?? Number.NaN).toFixed(3),
    quantile(differences, 0.99).toFixed(3),
    quantile(differences, 0.5).toFixed(4),
    `${beyond} (${distinct.filter(isBeyondTolerance).length})`,
    `${failing} of ${reading.probes.length}`,
    `${sets.filter((set) => set.filter(isBeyondTolerance).length >= 2).length} of ${sets.length}`,
    `${sets.filter((set) => distinctReadings(set).filter(isBeyondTolerance).length >= 2).length} of ${sets.length}`,
    worst === undefined ? "-" : `${worst.difference.toFixed(3)} at ${worst.trainerLogprob.toFixed(2)} (allowed ${worst.allowed.toFixed(3)})`,
  ]);
  if (values.out !== undefined) for (const [seed, probe] of reading.probes.entries()) appendFileSync(values.out, JSON.stringify({ step: reading.step, prompt: reading.prompt, way: reading.way, seed, tokens: probe }) + "\n");
}
console.log(`\nGRPO on ${module.capability} level ${values.level} from ${values.model}; ${probeSeeds.length} probes per way after each sync\n`);
console.log(markdownTable(rows, { align: ["r", "l", "l", "r", "r", "r", "r", "r", "r", "r", "r", "l"] }));

// The summary, over the steps after a training step (where both prompts are read): per prompt and way, side by side.
const summary: string[][] = [["prompt", "way", "tokens (distinct)", "beyond tolerance (distinct)", "sets of 8 with ≥ 2 distinct (the rule)", "max |difference|"]];
const keys = [...new Set(readings.filter((reading) => reading.step > 0).map((reading) => `${reading.prompt}\u0000${reading.way}`))];
for (const key of keys) {
  const [prompt, way] = key.split("\u0000") as [string, string];
  const group = readings.filter((reading) => reading.step > 0 && reading.prompt === prompt && reading.way === way);
  const tokens = group.flatMap((reading) => reading.probes.flat());
  const distinct = group.flatMap((reading) => distinctReadings(reading.probes.flat()));
  const sets = group.flatMap((reading) => Array.from({ length: Math.floor(reading.probes.length / SET) }, (_, set) => reading.probes.slice(set * SET, (set + 1) * SET).flat()));
  summary.push([
    prompt.startsWith("the step's") ? "the step's rollouts" : prompt,
    way,
    `${tokens.length} (${distinct.length})`,
    `${tokens.filter(isBeyondTolerance).length} (${distinct.filter(isBeyondTolerance).length})`,
    `${sets.filter((set) => distinctReadings(set).filter(isBeyondTolerance).length >= 2).length} of ${sets.length}`,
    tokens.reduce((most, token) => Math.max(most, token.difference), 0).toFixed(3),
  ]);
}
console.log(`\nSummary over steps 1–${values.iterations} (GRPO on ${module.capability} level ${values.level})\n`);
console.log(markdownTable(summary, { align: ["l", "l", "r", "r", "r", "r"] }));
