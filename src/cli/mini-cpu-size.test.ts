/**
 * The README's main job at its CPU size (`configs/mini-cpu.json`, unchanged) through its first seven stages, base to
 * evaluate: the shipped configuration loads and runs on CPU. The compare stage (every method × the budget, ~2 more
 * minutes on 2 cores) is left to `npm run main`; the smoke test in mini-command.test.ts runs compare on a smaller
 * configuration. Then `--until` resumes: a second call skips what is done and stops where it is told.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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

test("configs/mini-cpu.json runs base → evaluate on CPU, and --until stops and resumes there", { timeout: 900_000 }, async () => {
  const config = path.join(root, "configs", "mini-cpu.json");
  const shipped = JSON.parse(readFileSync(config, "utf8")) as { model: { sft: { demonstrations: number } }; target: { evaluationSeedCount: number } };
  const run = (until: string) => promisify(execFile)(process.execPath, [bin, "run", config, "--run-dir", runDirectory, "--until", until], { maxBuffer: 1 << 24 });
  const started = Date.now();
  const { stdout } = await run("evaluate");
  for (const stage of ["base", "rollout", "analyze", "synthesize", "train", "route", "evaluate"]) assert.match(stdout, new RegExp(`\\[\\d/8 ${stage}\\] done in`), stage);
  assert.doesNotMatch(stdout, /\[8\/8 compare\]/);
  assert.ok(!existsSync(path.join(runDirectory, "compare")), "compare did not run");
  const base = JSON.parse(readFileSync(path.join(runDirectory, "base", "sft.json"), "utf8")) as { demonstrations: number };
  assert.equal(base.demonstrations, shipped.model.sft.demonstrations);
  const routing = JSON.parse(readFileSync(path.join(runDirectory, "eval", "routing.json"), "utf8")) as { accuracy?: { tasks: number } };
  assert.equal(routing.accuracy?.tasks, shipped.target.evaluationSeedCount);
  assert.ok(existsSync(path.join(runDirectory, "eval", "report.md")));
  process.stdout.write(`# mini-cpu base → evaluate: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

  const resumed = await run("analyze");
  for (const stage of ["base", "rollout", "analyze"]) assert.match(resumed.stdout, new RegExp(`\\[\\d/8 ${stage}\\] skipped`), stage);
  assert.doesNotMatch(resumed.stdout, /\[4\/8 synthesize\]/, "stops after analyze");
  assert.doesNotMatch(resumed.stdout, /worker: starting/, "nothing to compute, no worker");
});
