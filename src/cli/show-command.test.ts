import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { tau2DataDirectory } from "../testing/shared-data.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-show-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("trace show reports an imported real τ²-bench run: 11 of 30 airline tasks solved", () => {
  const run = path.join(scratch, "run");
  const results = path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");
  execFileSync("node", [bin, "import", results, "--env", "tau2-airline", "--out", run], { encoding: "utf8" });
  const output = execFileSync("node", [bin, "show", run, "--json"], { encoding: "utf8" });
  const report = JSON.parse(output.trim().split("\n").at(-1) as string) as { overall: { finished: number; passed: number }; environments: { passHatK: Record<string, number>; terminations: Record<string, number> }[] };
  assert.deepEqual([report.overall.finished, report.overall.passed], [30, 11]);
  assert.equal(report.environments[0]!.passHatK["1"], 11 / 30);
  assert.deepEqual(report.environments[0]!.terminations, { user_stop: 29, max_steps: 1 });
  const missing = spawnSync("node", [bin, "show", path.join(scratch, "nothing")], { encoding: "utf8" });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /is not a run directory/);
});
