/**
 * End to end on CPU: `trace run` with the offline configuration (tiny model made by the pipeline, τ² airline + retail
 * subsets, scripted user, reference labeler, hand-written environments, GRPO through the worker, routing, evaluation),
 * then a second invocation that resumes: every stage skipped, nothing redone.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { COMPARE_METHODS } from "../compare/compare-methods.js";
import { tau2DataDirectory } from "../testing/shared-data.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-run-"));
const runDirectory = path.join(scratch, "run");

after(() => rmSync(scratch, { recursive: true, force: true }));

const config = {
  name: "e2e-tiny",
  // τ²'s system prompt is ~9k tokens with the tiny tokenizer: a shorter context would make every episode an endpoint failure.
  model: { initTiny: { seed: 0, maxPositions: 16384 } },
  // One task per domain: every τ² episode carries a ~9k-token prompt, and the stages' mechanics need no more (retail's
  // first task has a write, so the labeler finds the mapped capabilities lacking).
  target: { dataDirectory: tau2DataDirectory(), domains: ["airline", "retail"], tasksPerDomain: 1, maxSteps: 3, maxTokens: 16, concurrency: 2 },
  // Thresholds at 0 keep every capability the labeler sees lacking, so the mapped ones are trained whatever the tiny model does.
  analysis: { coverage: 0, gap: 0 },
  // Two capabilities: enough for routing between adapters, the mixture and the merge; every one more costs a GRPO run
  // and a share of every compared method's budget.
  environments: {
    map: {
      correct_write_arguments: "tool_calling_precision",
      complete_required_state_changes: "multi_step_completion",
    },
    validationSeeds: [0, 1],
  },
  // No extra sampling rounds, so that every GRPO iteration samples exactly G × K (the budget below); the other mechanisms keep their defaults.
  training: { iterations: 1, groups: 2, samples: 2, learningRate: 1e-4, rank: 4, maxTokens: 16, maxSteps: 2, concurrency: 4, checkpointEvery: 1, seeds: 4, dynamicSampling: { extraRounds: 0 } },
  evaluation: { heldOutSeeds: [1000], maxTokens: 16, maxSteps: 2 },
  // Every method of `trace compare` at the training budget (capabilities × 1 iteration × 2 × 2 rollouts): TRACE's
  // allowance for every method (`budget: "allowance"`; TRACE-mini's smoke test runs the default, TRACE's spend).
  compare: { seeds: [0], curvePoints: 1, budget: "allowance", sft: { epochs: 1, batchSize: 4, learningRate: 1e-4 } },
};

const STAGES = ["base", "rollout", "analyze", "synthesize", "train", "route", "evaluate", "compare"];

/** Every method wrote its result within the budget, and the report files exist. */
function assertComparison(run: string, capabilities: number): void {
  const limit = capabilities * 1 * 2 * 2;
  const markdown = readFileSync(path.join(run, "compare", "comparison.md"), "utf8");
  assert.match(markdown, new RegExp(`^Budget: ${limit} budgeted rollouts \\(TRACE's allowance\\)`, "m"));
  for (const method of COMPARE_METHODS) {
    const result = JSON.parse(readFileSync(path.join(run, "compare", "seed-0", method, "result.json"), "utf8")) as { label: string; budget: { limit: number; spent: number; evaluation: number }; domains: { domain: string; total: number }[] };
    assert.equal(result.budget.limit, limit, method);
    assert.ok(result.budget.spent <= limit, `${method} spent ${result.budget.spent} of ${limit}`);
    if (method === "trace" || method === "grpo-target" || method === "mixture") assert.equal(result.budget.spent, limit, `${method} spends the whole budget`);
    assert.deepEqual(result.domains.map((domain) => [domain.domain, domain.total]), [["airline", 1], ["retail", 1]], method);
    assert.ok(markdown.includes(result.label), `${method} in comparison.md`);
  }
  assert.equal(readFileSync(path.join(run, "compare", "curves.png")).subarray(1, 4).toString(), "PNG");
  assert.ok(readFileSync(path.join(run, "compare", "comparison.csv"), "utf8").split("\n").length > COMPARE_METHODS.length);
}

async function trace(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], { maxBuffer: 1 << 24 });
  return stdout;
}

test("trace run: every stage runs and writes its artifacts; a second run resumes without redoing any", { timeout: 600_000 }, async () => {
  const configFile = path.join(scratch, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const started = Date.now();
  const first = await trace("run", configFile, "--run-dir", runDirectory);
  const firstSeconds = (Date.now() - started) / 1000;
  for (const stage of STAGES) assert.match(first, new RegExp(`\\[\\d/8 ${stage}\\] done in`), stage);
  for (const file of ["config.json", "store.sqlite", "analysis/reference/selected_capabilities.json", "analysis/reference/report.md", "environments/index.json", "eval/routing.json", "eval/results.json", "eval/report.md"]) {
    assert.ok(existsSync(path.join(runDirectory, file)), file);
  }
  const environments = readdirSync(path.join(runDirectory, "environments")).filter((name) => name !== "index.json");
  assert.ok(environments.length > 0, "at least one kept capability has an environment");
  for (const capability of environments) {
    assert.ok(existsSync(path.join(runDirectory, "environments", capability, "environment.json")));
    assert.ok(existsSync(path.join(runDirectory, "adapters", capability, "training.json")), `adapter of ${capability}`);
  }
  assert.match(first, /\| overall \(solved \/ tasks\) \| \d+\.\d% \(\d+\/2\) \|/);
  assert.match(first, /\| base \(none of these\) \|/);
  assertComparison(runDirectory, environments.length);

  const markers = readdirSync(path.join(runDirectory, "stages")).map((name) => [name, statSync(path.join(runDirectory, "stages", name)).mtimeMs] as const);
  const resumedAt = Date.now();
  const second = await trace("run", configFile, "--run-dir", runDirectory);
  const secondSeconds = (Date.now() - resumedAt) / 1000;
  for (const stage of STAGES) assert.match(second, new RegExp(`\\[\\d/8 ${stage}\\] skipped`), stage);
  assert.doesNotMatch(second, /worker: starting/, "nothing to do: the worker is not even started");
  for (const [name, mtime] of markers) assert.equal(statSync(path.join(runDirectory, "stages", name)).mtimeMs, mtime, name);
  assert.match(second, /# e2e-tiny: TRACE report/);
  process.stdout.write(`# trace run: first ${firstSeconds.toFixed(1)} s, resumed ${secondSeconds.toFixed(1)} s\n`);

  // A method run that fails (here a corrupt result of seed 1's SFT) leaves the others' results and a report that says
  // what is missing; the command fails with one line naming the run, and a rerun resumes it alone.
  const sftResult = path.join(runDirectory, "compare", "seed-1", "sft", "result.json");
  mkdirSync(path.dirname(sftResult), { recursive: true });
  writeFileSync(sftResult, "{ not json");
  const failed = await promisify(execFile)(process.execPath, [bin, "compare", runDirectory, "--seeds", "1", "--methods", "base,sft"], { maxBuffer: 1 << 24 }).then(
    () => assert.fail("trace compare succeeded with a corrupt result"),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /^trace: 1 method run\(s\) failed — seed 1 sft: .*result\.json.* — the other 1 are in .*compare\/comparison\.md; run again to resume the failed ones$/m);
  assert.ok(existsSync(path.join(runDirectory, "compare", "seed-1", "base", "result.json")), "the base's run of seed 1 finished and was kept");
  assert.match(readFileSync(path.join(runDirectory, "compare", "comparison.md"), "utf8"), /^\*\*Incomplete\*\*: seed 1 sft \(/m);
});
