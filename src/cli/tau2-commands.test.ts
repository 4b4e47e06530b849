import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { tau2DataDirectory, tau2DomainDirectory } from "../testing/shared-data.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function lastJsonLine(output: string): Record<string, unknown> {
  const lines = output.trim().split("\n");
  return JSON.parse(lines.at(-1) as string) as Record<string, unknown>;
}

test("trace tau2 gold --json ends with the summary object and writes a results file", () => {
  const out = path.join(scratch, "gold.json");
  const output = execFileSync("node", [bin, "tau2", "gold", "--domain", "retail", "--data-dir", tau2DomainDirectory("retail"), "--json", "--out", out], { encoding: "utf8" });
  const summary = lastJsonLine(output);
  assert.equal(summary.n, 74);
  assert.equal(summary.perfect, 74);
  assert.equal((summary.tasks as unknown[]).length, 74);
  const regrade = lastJsonLine(execFileSync("node", [bin, "tau2", "grade", "--domain", "retail", "--data-dir", tau2DomainDirectory("retail"), out, "--json"], { encoding: "utf8" }));
  assert.deepEqual([regrade.n, regrade.agree, regrade.disagree], [74, 74, 0]);
});

test("trace tau2 grade --json reproduces the recorded rewards of the real airline runs", () => {
  const results = path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");
  const output = execFileSync("node", [bin, "tau2", "grade", "--domain", "airline", "--data-dir", tau2DomainDirectory("airline"), results, "--json"], { encoding: "utf8" });
  const summary = lastJsonLine(output);
  assert.deepEqual([summary.n, summary.agree, summary.disagree], [30, 30, 0]);
  assert.match(output, /30 simulations, 30 agree/);
});

test("bad input exits non-zero with one line naming the file", () => {
  const broken = path.join(scratch, "broken.json");
  writeFileSync(broken, "{ not json");
  const result = spawnSync("node", [bin, "tau2", "grade", "--domain", "airline", "--data-dir", tau2DomainDirectory("airline"), broken], { encoding: "utf8" });
  assert.equal(result.status, 1);
  assert.match(result.stderr, new RegExp(`^trace: ${broken.replaceAll(".", "\\.")}: not valid JSON`));
  const unknown = spawnSync("node", [bin, "tau2", "gold", "--domain", "telecom", "--data-dir", scratch], { encoding: "utf8" });
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /unknown τ²-bench domain "telecom"/);
});
