/**
 * End to end on CPU, TRACE-mini at smoke size: the base stage makes the base agent (expert demonstrations with
 * deficits, a tokenizer trained on them, SFT through the trainer API, merged checkpoint), then rollouts on training
 * seeds, the module reference labeler, the mini capability environments, GRPO, retrieval routing with its accuracy,
 * evaluation on held-out seeds, and `compare` with every method at one budget.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { serveRun } from "./serve-command.js";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { COMPARE_METHODS } from "../compare/compare-methods.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-mini-"));
const runDirectory = path.join(scratch, "run");

after(() => rmSync(scratch, { recursive: true, force: true }));

const config = {
  name: "mini-smoke",
  model: {
    initTiny: { vocabSize: 1024, hiddenSize: 32, layers: 1, attentionHeads: 2, keyValueHeads: 1, headDim: 16, intermediateSize: 64, seed: 0 },
    sft: { demonstrations: 24, epochs: 1, batchSize: 8, learningRate: 0.005, rank: 32, refresh: { demonstrations: 8 }, splitDigits: true, mechanicsDemonstrations: 3, mechanicsSamples: 1, corrections: { episodes: 4 }, practiceShare: 0.5, shuffle: true, schedule: { warmupSteps: 1 } },
  },
  // The v2 target: composite tasks among the single-capability ones.
  target: { kind: "mini", families: ["precondition", "payment", "composite"], trainingSeeds: 8, evaluationSeedStart: 100_000, evaluationSeedCount: 4, maxSteps: 6, maxTokens: 24, temperature: 1, concurrency: 8 },
  // Thresholds at 0 keep every capability the labeler sees lacking, whatever the barely trained base does.
  analysis: { coverage: 0, gap: 0 },
  // One capability per mini module: each more is another GRPO run and a larger budget for every compared method.
  environments: {
    map: {
      avoid_unrequested_state_changes: "mini_precondition_verification",
      correct_write_arguments: "mini_tool_calling_precision",
      complete_required_state_changes: "mini_multi_step_completion",
    },
    validationSeeds: [0],
  },
  // One extra sampling round at most: TRACE's allowance is 2 × G × K per iteration, and it may spend less (the budget
  // of every other method, asserted below).
  training: { iterations: 1, allocation: "coverage", groups: 2, samples: 2, learningRate: 1e-3, learningRates: { correct_write_arguments: 2e-3 }, rank: 4, maxTokens: 24, maxSteps: 4, concurrency: 8, checkpointEvery: 1, seeds: 4, dynamicSampling: { extraRounds: 1 } },
  // Requests with two or more sentences close to the examples go to the merged adapters, each adapter at full weight.
  routing: { method: "retrieval", examples: 8, multiPartSimilarity: 0.3, mergeWeight: 1 },
  evaluation: { heldOutSeeds: [100_000], maxTokens: 24, maxSteps: 4, temperature: 1 },
  // Two seeds at once, each on its own worker process.
  compare: { seeds: [0, 1], parallelSeeds: 2, parallelMethods: 3, curvePoints: 1, sft: { epochs: 1, batchSize: 4, learningRate: 1e-3 }, gepa: { minibatchSize: 2, reflectionMaxTokens: 16, proposalsPerRound: 2 }, merge: { weight: 0.5 } },
};

test("TRACE-mini: base SFT, analysis, training, retrieval routing, held-out evaluation and every compared method", { timeout: 900_000 }, async () => {
  const configFile = path.join(scratch, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const started = Date.now();
  const { stdout } = await promisify(execFile)(process.execPath, [bin, "run", configFile, "--run-dir", runDirectory], { maxBuffer: 1 << 24 });
  for (const stage of ["base", "rollout", "analyze", "synthesize", "train", "route", "evaluate", "compare"]) assert.match(stdout, new RegExp(`\\[\\d/8 ${stage}\\] done in`), stage);
  // The run ends with the evaluation's report and then the comparison's tables (its per-seed notes stay in the file).
  const printed = stdout.slice(stdout.lastIndexOf("TRACE report"));
  for (const heading of ["## Table 1: all methods", "## TRACE against each method, paired by seed"]) assert.ok(printed.includes(`\n${heading}\n`), heading);
  assert.ok(!printed.includes("\n## Notes\n") && readFileSync(path.join(runDirectory, "compare", "comparison.md"), "utf8").includes("\n## Notes\n"), "the notes are in comparison.md, not printed");
  const base = JSON.parse(readFileSync(path.join(runDirectory, "base", "sft.json"), "utf8")) as { demonstrations: number; losses: number[]; expertSuccessRate: number; refresh?: { expertSuccessRate: number } };
  assert.equal(base.demonstrations, 24);
  assert.deepEqual(base.refresh, { demonstrations: 8, epochs: 1, learningRate: 0.005, expertSuccessRate: base.refresh?.expertSuccessRate });
  assert.equal(base.losses.length, 3 + 1, "three steps on the first 24 demonstrations, one on the 8 fresh ones");
  const demonstrations = readFileSync(path.join(runDirectory, "base", "demonstrations.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { messages: { role: string; content: string | null }[] });
  assert.equal(demonstrations.length, 32);
  // practiceShare 0.5: part of the demonstrations are played in the practice worlds' wording, the rest in the target's.
  const practiceWorded = demonstrations.filter(({ messages }) => /^(My user id is|u\d+ here\.)/.test(messages.find((message) => message.role === "user")?.content ?? "")).length;
  assert.ok(practiceWorded > 4 && practiceWorded < 28, `${practiceWorded} of 32 demonstrations in practice wording`);
  assert.ok(base.losses.at(-1)! < base.losses[0]!, `SFT loss ${base.losses[0]} → ${base.losses.at(-1)}`);
  assert.ok(base.expertSuccessRate > 0 && base.expertSuccessRate < 1, "the expert's deficits make some demonstrations fail");
  assert.ok(existsSync(path.join(runDirectory, "model", "model.safetensors")), "merged base checkpoint");
  // The record names what makes two trainings comparable: the worker's deterministic mode and the merged weights' digest.
  const reproducibility = JSON.parse(readFileSync(path.join(runDirectory, "base", "sft.json"), "utf8")) as { deterministic: boolean; weightsSha256: string };
  assert.equal(reproducibility.deterministic, false);
  assert.equal(reproducibility.weightsSha256, createHash("sha256").update(readFileSync(path.join(runDirectory, "model", "model.safetensors"))).digest("hex"));
  // Mechanics measured through the worker on 3 held-out flawless demonstrations, apart from task success.
  const mechanics = (JSON.parse(readFileSync(path.join(runDirectory, "base", "sft.json"), "utf8")) as { mechanics: { demonstrations: number; turns: number; toolTurns: number; toolCallValidity: number; identifierCopying: number; callAttempts: number; textAtToolTurns: number; sampled: { episodes: number; temperature: number; identifierCopying: number } } }).mechanics;
  assert.equal(mechanics.demonstrations, 3);
  // One round of corrections: the base played four fresh seeds itself, and each state it reached was labelled and trained on.
  const corrections = (JSON.parse(readFileSync(path.join(runDirectory, "base", "sft.json"), "utf8")) as { corrections: { temperature: number; states: string; rounds: { episodes: number; states: number; disagreements: number; trained: number; losses: number[] }[] } }).corrections;
  assert.equal(corrections.rounds.length, 1);
  const [round] = corrections.rounds;
  assert.ok(round!.episodes === 4 && round!.states >= 4 && round!.disagreements <= round!.states && round!.losses.length >= 1, JSON.stringify(corrections));
  assert.deepEqual([corrections.states, round!.trained], ["all", round!.states], "every state labelled is trained on");
  assert.equal(corrections.temperature, 1);
  // The base's own episodes on the same three seeds, one each, at the training temperature.
  assert.deepEqual([mechanics.sampled.episodes, mechanics.sampled.temperature], [3, 1]);
  assert.ok(mechanics.sampled.identifierCopying >= 0 && mechanics.sampled.identifierCopying <= 1);
  assert.ok(mechanics.callAttempts >= 0 && mechanics.textAtToolTurns <= mechanics.toolTurns, JSON.stringify(mechanics));
  assert.ok(mechanics.turns >= mechanics.toolTurns && mechanics.toolTurns >= 3, JSON.stringify(mechanics));
  for (const rate of [mechanics.toolCallValidity, mechanics.identifierCopying]) assert.ok(rate >= 0 && rate <= 1);
  // The base rollouts' failures attributed to the designed deficits or to something else.
  const failures = JSON.parse(readFileSync(path.join(runDirectory, "base", "failures.json"), "utf8")) as { episodes: number; failed: number; explained: number; other: number };
  assert.equal(failures.episodes, 8);
  assert.equal(failures.explained + failures.other, failures.failed);
  // The same attribution for the base's held-out evaluation episodes (4 tasks, 1 trial each).
  const heldOutFailures = JSON.parse(readFileSync(path.join(runDirectory, "eval", "base-failures.json"), "utf8")) as typeof failures;
  assert.equal(heldOutFailures.episodes, 4);
  assert.equal(heldOutFailures.explained + heldOutFailures.other, heldOutFailures.failed);
  // And for the routed agent's, which the report shows beside the base's.
  const traceFailures = JSON.parse(readFileSync(path.join(runDirectory, "eval", "trace-failures.json"), "utf8")) as typeof failures;
  assert.equal(traceFailures.episodes, 4);
  assert.equal(traceFailures.explained + traceFailures.other, traceFailures.failed);
  assert.match(readFileSync(path.join(runDirectory, "eval", "report.md"), "utf8"), new RegExp(`^\\| failed \\(of episodes\\) \\| ${heldOutFailures.failed} of 4 \\| ${traceFailures.failed} of 4 \\|$`, "m"));
  // The evaluate stage's base and TRACE per task family add up to its totals (a precondition task also counts under
  // whether its order is pending: "precondition · pending").
  const evaluation = JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as { domains: { base: { passed: number; total: number }; groups?: Record<string, { base: { passed: number; total: number } }> }[] };
  const families = Object.entries(evaluation.domains[0]!.groups ?? {}).flatMap(([kind, family]) => (kind.includes(" · ") ? [] : [family]));
  assert.ok(families.length > 0);
  assert.equal(families.reduce((sum, family) => sum + family.base.total, 0), 4);
  assert.equal(families.reduce((sum, family) => sum + family.base.passed, 0), evaluation.domains[0]!.base.passed);
  assert.match(readFileSync(path.join(runDirectory, "eval", "report.md"), "utf8"), /^\| domain \| kind of task \| base pass rate \| TRACE pass rate \|$/m);
  // The kept capabilities the synthesize stage skipped are the ones the results call untrained, and the report names them.
  const skipped = (JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { skipped: { capability: string; reason: string }[] }).skipped;
  assert.deepEqual((JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as { untrained?: unknown }).untrained, skipped);
  if (skipped.length > 0) assert.match(readFileSync(path.join(runDirectory, "eval", "report.md"), "utf8"), new RegExp(`^Kept by the analysis, no adapter trained: ${skipped[0]!.capability} `, "m"));
  // The evaluation tasks per routing option add up to the evaluation, for the base and for TRACE.
  const routes = (JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as { routes: { tasks: number; base: { passed: number }; trace: { passed: number } }[]; domains: { trace: { passed: number } }[] }).routes;
  assert.equal(routes.reduce((sum, route) => sum + route.tasks, 0), 4);
  assert.equal(routes.reduce((sum, route) => sum + route.base.passed, 0), evaluation.domains[0]!.base.passed);
  assert.match(stdout, /mini-service\/base: failed held-out episodes explained by the designed deficits alone: \d+\/\d+/);
  const routing = JSON.parse(readFileSync(path.join(runDirectory, "eval", "routing.json"), "utf8")) as { decisions: { source: string }[]; accuracy?: { tasks: number } };
  assert.equal(routing.decisions.length, 12, "8 training and 4 evaluation tasks routed");
  assert.ok(routing.decisions.every((decision) => decision.source === "retrieval"));
  assert.equal(routing.accuracy?.tasks, 4);
  // routing.multiPartSimilarity: a fifth option, the adapters merged on the worker and saved in the run, takes the
  // multi-part requests; compare's TRACE merges each snapshot's own checkpoints for them.
  const options = (JSON.parse(readFileSync(path.join(runDirectory, "eval", "routing.json"), "utf8")) as { options: { label: string; capability: string | null }[]; decisions: { label: string }[] });
  // (Offered with two or more adapters; the barely trained base's analysis keeps all three on the machines tried.)
  const adapterCount = readdirSync(path.join(runDirectory, "adapters")).filter((entry) => existsSync(path.join(runDirectory, "adapters", entry, "training.json"))).length;
  const mergedOption = options.options.find((option) => option.capability === "(merged adapters)");
  assert.equal(mergedOption !== undefined, adapterCount >= 2, JSON.stringify(options.options));
  if (mergedOption !== undefined) {
    assert.ok(options.decisions.some((decision) => decision.label === mergedOption.label), "some request is multi-part");
    assert.ok(existsSync(path.join(runDirectory, "routing", "merged-adapter", "adapter_config.json")));
    assert.ok(existsSync(path.join(runDirectory, "compare", "seed-1", "trace", "merged", "snapshot-0", "adapter_config.json")));
    assert.match(stdout, /merged \d+ adapters for multi-part requests into .* \(each weighted 1;/);
    // The merge baseline weighs the same adapters by its own setting.
    const mergeNotes = (JSON.parse(readFileSync(path.join(runDirectory, "compare", "seed-1", "merge", "result.json"), "utf8")) as { notes: string[] }).notes;
    assert.ok(mergeNotes.some((note) => /each weighted 0\.5/.test(note)), JSON.stringify(mergeNotes));
    // `trace serve` serves the merged adapters too: a two-part request is sampled with them.
    const serving = await serveRun(runDirectory, { port: 0, host: "127.0.0.1", log: () => {} });
    try {
      const response = await fetch(`${serving.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: serving.servedModelName, max_tokens: 4, messages: [{ role: "user", content: "I am u15. Please cancel order #W31. Also pay order #W10 with my card ending 9483." }] }),
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-trace-route"), "trace-merged");
    } finally {
      await serving.close();
    }
  }
  const environments = (JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: unknown[] }).environments.length;
  assert.ok(environments > 0);
  // allocation "coverage": the adapters' iterations, shared by the analysis's Cov, add up to one per capability.
  assert.match(stdout, /iterations by Cov: /);
  const trained = (JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: { capability: string }[] }).environments.map(
    ({ capability }) => (JSON.parse(readFileSync(path.join(runDirectory, "adapters", capability, "training.json"), "utf8")) as { iterations: number }).iterations,
  );
  assert.equal(trained.reduce((sum, iterations) => sum + iterations, 0), environments);
  // training.learningRates: the tool-calling adapter steps at 2e-3, the other adapters and GRPO on the target at 1e-3
  // (each metrics.jsonl line of an iteration that made a step names its learning rate), in the train stage and compare.
  assert.match(stdout, /learning rates: .*correct_write_arguments 0\.002/);
  const stepRates = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").map((line) => (JSON.parse(line) as { learningRate: number | null }).learningRate).filter((rate) => rate !== null) : []);
  const capabilities = (JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: { capability: string }[] }).environments.map(({ capability }) => capability);
  const rates = capabilities.flatMap((capability) => [
    ...stepRates(path.join(runDirectory, "adapters", capability, "metrics.jsonl")),
    ...stepRates(path.join(runDirectory, "compare", "seed-1", "trace", `s1-${capability}`, "metrics.jsonl")),
  ].map((rate) => [capability, rate] as const));
  assert.ok(rates.length > 0, "some TRACE adapter made a step");
  for (const [capability, rate] of rates) assert.equal(rate, capability === "correct_write_arguments" ? 2e-3 : 1e-3, capability);
  for (const rate of stepRates(path.join(runDirectory, "compare", "seed-1", "grpo-target", "s1-grpo-target", "metrics.jsonl"))) assert.equal(rate, 1e-3, "GRPO on the target");
  // TRACE's allowance: environments × 1 iteration × G × K × 2 rounds; every other method's budget is what TRACE spent.
  const allowance = environments * 1 * 2 * 2 * 2;
  for (const seed of [0, 1]) {
    const read = (method: string) => JSON.parse(readFileSync(path.join(runDirectory, "compare", `seed-${seed}`, method, "result.json"), "utf8")) as { seed: number; budget: { limit: number; spent: number }; domains: { domain: string; total: number; passed: number; groups?: Record<string, { passed: number; total: number }> }[] };
    const trace = read("trace");
    assert.equal(trace.budget.limit, allowance);
    assert.ok(trace.budget.spent >= environments * 2 * 2 && trace.budget.spent <= allowance, `TRACE spent ${trace.budget.spent}`);
    for (const method of COMPARE_METHODS) {
      const result = read(method);
      assert.equal(result.seed, seed, method);
      if (method !== "trace" && method !== "base") assert.equal(result.budget.limit, trace.budget.spent, `${method}'s budget is TRACE's spend`);
      assert.ok(result.budget.spent <= result.budget.limit, method);
      assert.deepEqual(result.domains.map((domain) => [domain.domain, domain.total]), [["mini", 4]], method);
      const kinds = result.domains[0]!.groups ?? {};
      const groups = Object.entries(kinds).flatMap(([kind, count]) => (kind.includes(" · ") ? [] : [count]));
      assert.ok(groups.length > 0, `${method} scores each task family`);
      const statuses = Object.entries(kinds).flatMap(([kind, count]) => (kind.startsWith("precondition · ") ? [count.total] : []));
      assert.equal(statuses.reduce((sum, total) => sum + total, 0), kinds.precondition?.total ?? 0, `${method}: the precondition tasks by their order's status`);
      assert.equal(groups.reduce((sum, count) => sum + count.total, 0), 4, method);
      assert.equal(groups.reduce((sum, count) => sum + count.passed, 0), result.domains[0]!.passed, method);
    }
  }
  assert.match(readFileSync(path.join(runDirectory, "compare", "comparison.md"), "utf8"), /^## Pass rate per kind of task$/m);
  // Both reports name the machine behind their figures (each seed's own worker here, on one machine: one line).
  const machineLine = /^Machine: .+, \d+ cores \(cpu, float32\); torch \d[^,]*, transformers \d[^,]*, peft \d[^;]*; deterministic training off\.$/m;
  assert.match(readFileSync(path.join(runDirectory, "compare", "comparison.md"), "utf8"), machineLine);
  assert.match(readFileSync(path.join(runDirectory, "eval", "report.md"), "utf8"), machineLine);
  assert.match(readFileSync(path.join(runDirectory, "compare", "comparison.md"), "utf8"), /^Budget: what TRACE spent on the seed, in budgeted rollouts \(seed 0: \d+; seed 1: \d+; TRACE itself within its allowance of \d+\)/m);
  assert.match(stdout, /\[seed 1\] worker: serving/, "seed 1 ran on a worker of its own");
  // parallelMethods 3: a seed's methods run side by side (a second starts before the first ends), merge after TRACE.
  const lines = stdout.split("\n");
  const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
  assert.ok(at(/seed 0 gepa: running/) < at(/seed 0 grpo-target: pass rate/), "gepa starts before GRPO on the target ends");
  assert.ok(at(/seed 0 trace: (pass rate|done earlier)/) < at(/seed 0 merge: running/), "merge waits for TRACE");
  for (const file of ["comparison.md", "comparison.csv", "comparison-kinds.csv", "curves.csv", "curves.svg", "curves.png"]) assert.ok(existsSync(path.join(runDirectory, "compare", file)), file);
  // The same measurement on the merged checkpoint, from the command line.
  const measured = await promisify(execFile)(process.execPath, [bin, "model", "mechanics", path.join(runDirectory, "model"), "--demonstrations", "2", "--max-steps", "6", "--max-tokens", "24", "--samples", "2", "--temperature", "0.5", "--json"], { maxBuffer: 1 << 24 });
  const report = JSON.parse(measured.stdout.trim().split("\n").at(-1)!) as { demonstrations: number; turns: number; seeds: { start: number; count: number }; sampled: { episodes: number; temperature: number } };
  assert.deepEqual([report.demonstrations, report.seeds.count, report.sampled.episodes, report.sampled.temperature], [2, 2, 4, 0.5]);
  assert.ok(report.turns >= 2);
  await assert.rejects(promisify(execFile)(process.execPath, [bin, "model", "mechanics", path.join(runDirectory, "model"), "--families", "precondition,refunds"]), /unknown family "refunds"/);
  await assert.rejects(promisify(execFile)(process.execPath, [bin, "model", "mechanics", path.join(runDirectory, "model"), "--temperature", "-1"]), /--temperature must be a number ≥ 0, got "-1"/);
  process.stdout.write(`# TRACE-mini smoke run: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
});
