import assert from "node:assert/strict";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { labelingRequest, reply } from "../testing/analyst-test-support.js";
import type { RunFile } from "../analysis/run-file.js";
import { startFakeChatServer } from "../testing/fake-chat-server.js";
import { tau2DataDirectory } from "../testing/shared-data.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-analyze-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function trace(...args: string[]): string {
  return execFileSync("node", [bin, ...args], { encoding: "utf8" });
}

describe("trace analyze --labeler reference on the real τ²-bench runs (airline 30 + retail 74)", () => {
  const run = path.join(scratch, "real");
  const analysis = path.join(run, "analysis", "reference");
  let printed = "";
  before(() => {
    const trajectories = path.join(tau2DataDirectory(), "trajectories");
    trace("import", path.join(trajectories, "airline-qwen3-30b-a3b-base.train.json"), "--env", "tau2-airline", "--run-dir", run);
    trace("import", path.join(trajectories, "retail-qwen3-30b-a3b-base.train.json"), "--env", "tau2-retail", "--run-dir", run);
    printed = trace("analyze", run, "--labeler", "reference", "--data-dir", tau2DataDirectory());
  });

  test("writes the run file: every trajectory labeled once per capability, 67 failed and 37 passed", () => {
    const runFile = JSON.parse(readFileSync(path.join(analysis, "run_01.json"), "utf8")) as RunFile;
    assert.deepEqual(runFile.totals, { total_failed: 67, total_passed: 37 });
    assert.deepEqual(Object.keys(runFile.labels).sort(), [
      "avoid_unrequested_state_changes", "communicate_required_information", "complete_required_state_changes", "correct_write_arguments", "lookup_before_write",
    ]);
    for (const [capability, lists] of Object.entries(runFile.labels)) {
      const failed = [...lists.lacking_failed, ...lists.present_failed, ...lists.na_failed];
      const passed = [...lists.lacking_passed, ...lists.present_passed, ...lists.na_passed];
      assert.equal(new Set(failed).size, 67, capability);
      assert.equal(new Set(passed).size, 37, capability);
      assert.ok([...failed, ...passed].every((key) => /^(airline|retail):\d+$/.test(key)), capability);
    }
    // A trajectory that solved its task reproduced the gold state, so it never lacks a state capability.
    assert.deepEqual(runFile.labels.correct_write_arguments?.lacking_passed, []);
    assert.deepEqual(runFile.labels.avoid_unrequested_state_changes?.lacking_passed, []);
  });

  test("selects capabilities into selected_capabilities.json and prints the report it writes", () => {
    const selected = JSON.parse(readFileSync(path.join(analysis, "selected_capabilities.json"), "utf8")) as { skill: string; mean_delta: number; status: string; n_runs_total: number }[];
    assert.ok(selected.length > 0);
    assert.ok(selected.every((row) => row.status === "kept" && row.n_runs_total === 1));
    assert.deepEqual(selected.map((row) => row.mean_delta), selected.map((row) => row.mean_delta).sort((left, right) => right - left));
    assert.ok(!selected.some((row) => row.skill === "lookup_before_write"), "the base model looks records up before writing about as often when it fails as when it succeeds");
    const report = readFileSync(path.join(analysis, "report.md"), "utf8");
    assert.match(report, /\| capability \| Cov mean ± sd \| Δ mean ± sd \| runs passed \| kept \| kept in resamples \| example failed tasks \|/);
    assert.match(report, /\| lookup_before_write \| [0-9.]+ ± 0\.000 \| -?[0-9.]+ ± 0\.000 \| 0\/1 \| no \|/);
    assert.ok(printed.includes(report), "trace analyze prints the report");
    assert.equal(trace("analyze", "report", run, "--labeler", "reference").trim(), report.trim());
    assert.ok(existsSync(path.join(analysis, "candidate_capabilities.json")));
  });

  test("trace analyze aggregate re-aggregates the run file with other thresholds", () => {
    const out = path.join(scratch, "strict", "selected_capabilities.json");
    const printedTable = trace("analyze", "aggregate", "--runs", analysis, "--out", out, "--gap", "0.7", "--min-runs", "1");
    const selected = JSON.parse(readFileSync(out, "utf8")) as { skill: string; mean_delta: number }[];
    assert.ok(selected.every((row) => row.mean_delta >= 0.7));
    assert.match(printedTable, /kept \d of 5 capabilities over 1 runs/);
    assert.ok(existsSync(path.join(scratch, "strict", "capability_scores.json")));
  });
});

describe("trace analyze with an LLM analyst on the reference dictionary", () => {
  test("labels the real runs through the fake analyst and reports its agreement with the reference labeler", { timeout: 60_000 }, async () => {
    const run = path.join(scratch, "real");
    let requests = 0;
    // The fake analyst calls every capability PRESENT.
    const server = await startFakeChatServer((request, res) => {
      const labeling = labelingRequest(request);
      assert.ok(labeling, "no discovery with --candidates");
      requests += 1;
      const labels = Object.fromEntries(labeling.keys.map((key) => [key, Object.fromEntries(CAPABILITIES.map((name) => [name, "PRESENT"]))]));
      reply(res, JSON.stringify({ labels }));
    });
    try {
      const { stdout } = await promisify(execFile)("node", [
        bin, "analyze", run, "--candidates", "reference", "--analyst-url", server.baseUrl, "--analyst-model", "fake", "--runs", "2", "--min-runs", "1", "--quiet",
      ]);
      assert.ok(requests >= 2 * Math.ceil(104 / 8), `${requests} labeling requests`);
      assert.match(stdout, /## Agreement with the reference labeler/);
      for (const name of CAPABILITIES) assert.match(stdout, new RegExp(`\\| ${name} \\| 208 \\| [0-9.]+ \\| [-0-9.]+ \\| (0\\.000|-) \\|`), name);
      const llmRun = JSON.parse(readFileSync(path.join(run, "analysis", "run_02.json"), "utf8")) as RunFile;
      assert.deepEqual(llmRun.totals, { total_failed: 67, total_passed: 37 });
      assert.match(trace("analyze", "report", run, "--labeler", "reference"), /## Agreement with the reference labeler/);
    } finally {
      await server.close();
    }
  });
});

const CAPABILITIES = ["complete_required_state_changes", "correct_write_arguments", "avoid_unrequested_state_changes", "communicate_required_information", "lookup_before_write"];

describe("trace analyze input errors", () => {
  test("a malformed run file stops aggregate with one line naming the file and the field", () => {
    const directory = path.join(scratch, "bad-runs");
    mkdirSync(directory);
    writeFileSync(path.join(directory, "run_01.json"), JSON.stringify({ attempt: 1, totals: { total_failed: 1, total_passed: "0" }, labels: {} }));
    const result = spawnSync("node", [bin, "analyze", "aggregate", "--runs", directory, "--out", path.join(directory, "out.json"), "--min-runs", "1"], { encoding: "utf8" });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^trace: .*run_01\.json: totals\.total_passed: .*expected number/);
  });

  test("the reference labeler refuses --runs; the LLM analyst needs an endpoint; a non-run is refused", () => {
    const run = path.join(scratch, "real");
    const reference = spawnSync("node", [bin, "analyze", run, "--labeler", "reference", "--runs", "10"], { encoding: "utf8" });
    assert.equal(reference.status, 1);
    assert.match(reference.stderr, /deterministic/);
    const llm = spawnSync("node", [bin, "analyze", run], { encoding: "utf8" });
    assert.match(llm.stderr, /needs --analyst-url and --analyst-model/);
    const missing = spawnSync("node", [bin, "analyze", path.join(scratch, "nothing"), "--labeler", "reference"], { encoding: "utf8" });
    assert.match(missing.stderr, /is not a run directory/);
  });
});

test("trace analyze reads a trace run directory's τ² data from its config.json (no --data-dir)", () => {
  const run = path.join(scratch, "pipeline-shaped");
  trace("import", path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json"), "--env", "tau2-airline", "--run-dir", run);
  // The resolved configuration `trace run` writes, in place of the import's manifest.
  writeFileSync(path.join(run, "config.json"), JSON.stringify({ name: "x", model: { servedModelName: "base" }, target: { kind: "tau2", dataDirectory: tau2DataDirectory(), domains: ["airline"] } }));
  trace("analyze", run, "--labeler", "reference");
  const runFile = JSON.parse(readFileSync(path.join(run, "analysis", "reference", "run_01.json"), "utf8")) as RunFile;
  assert.equal(runFile.totals.total_failed + runFile.totals.total_passed, 30);
});
