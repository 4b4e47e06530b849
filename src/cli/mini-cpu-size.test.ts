/**
 * The README's main job at its CPU size (`configs/mini-v2-cpu.json`) through its first seven stages, from the shipped
 * base (`models/mini-v2-base`) to the held-out evaluation: the shipped configuration and checkpoint load and run on
 * CPU, and the base agent is a working one (it passes some target tasks, not all). Two parts are left to
 * `npm run main`: each adapter's GRPO is cut here from the configuration's iterations to one (every other key as
 * shipped; the train stage was 106 of this test's 166 s on 2 cores), and the compare stage (every method at the
 * budget, about 7 more minutes); the smoke test in mini-command.test.ts runs compare on a smaller configuration.
 * Then `--until` resumes: a second call skips what is done and stops where it is told.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-mini-cpu-"));
const runDirectory = path.join(scratch, "run");

after(() => rmSync(scratch, { recursive: true, force: true }));

test("configs/mini-v2-cpu.json runs rollout → evaluate on CPU from the shipped base, and --until stops and resumes there", { timeout: 900_000 }, async () => {
  const shipped = JSON.parse(readFileSync(path.join(root, "configs", "mini-v2-cpu.json"), "utf8")) as {
    model: { path: string };
    target: { evaluationSeedCount: number; trainingSeeds: number };
    training: { iterations: number; checkpointEvery: number };
  };
  assert.ok(existsSync(path.join(root, shipped.model.path, "model.safetensors")), "the shipped base checkpoint is in the repository");
  assert.ok(shipped.training.iterations > 1, "the shipped configuration trains for more than the one iteration this test keeps");
  const config = path.join(scratch, "mini-v2-cpu.json");
  writeFileSync(config, JSON.stringify({ ...shipped, training: { ...shipped.training, iterations: 1, checkpointEvery: 1 } }));
  // model.path is relative to the repository root, as `npm run main` runs it.
  const run = (until: string) => promisify(execFile)(process.execPath, [bin, "run", config, "--run-dir", runDirectory, "--until", until], { maxBuffer: 1 << 24, cwd: root });
  const started = Date.now();
  const { stdout } = await run("evaluate");
  assert.match(stdout, /\[1\/8 base\] done in [\d.]+ s: base checkpoint present at .*models\/mini-v2-base/);
  for (const stage of ["rollout", "analyze", "synthesize", "train", "route", "evaluate"]) assert.match(stdout, new RegExp(`\\[\\d/8 ${stage}\\] done in`), stage);
  assert.doesNotMatch(stdout, /\[8\/8 compare\]/);
  assert.ok(!existsSync(path.join(runDirectory, "compare")), "compare did not run");
  const rollout = /\[2\/8 rollout\] done in [\d.]+ s: mini-service: (\d+)\/(\d+) passed/.exec(stdout);
  assert.ok(rollout !== null, "rollout summary");
  const [passed, total] = [Number(rollout[1]), Number(rollout[2])];
  assert.equal(total, shipped.target.trainingSeeds);
  assert.ok(passed > 0 && passed < total, `the shipped base passes some training tasks, not all: ${passed}/${total}`);
  const routing = JSON.parse(readFileSync(path.join(runDirectory, "eval", "routing.json"), "utf8")) as { accuracy?: { tasks: number } };
  assert.equal(routing.accuracy?.tasks, shipped.target.evaluationSeedCount);
  assert.ok(existsSync(path.join(runDirectory, "eval", "report.md")));
  assert.match(stdout, /\[5\/8 train\] done in [\d.]+ s: \d+ adapters/, "adapters trained");
  process.stdout.write(`# mini-v2-cpu rollout → evaluate: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const resumed = await run("analyze");
  for (const stage of ["base", "rollout", "analyze"]) assert.match(resumed.stdout, new RegExp(`\\[\\d/8 ${stage}\\] skipped`), stage);
  assert.doesNotMatch(resumed.stdout, /\[4\/8 synthesize\]/, "stops after analyze");
  assert.doesNotMatch(resumed.stdout, /worker: starting/, "nothing to compute, no worker");
});
