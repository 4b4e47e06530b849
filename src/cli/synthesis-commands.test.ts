import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer } from "../models/fake-chat-server.js";
import { minimalModuleSource } from "../synthesis/sandbox/sandbox-test-modules.js";
import { tau2DataDirectory } from "../testing/shared-data.js";
import { runEnvCheck, runSynthesize } from "./synthesis-commands.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-synthesis-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const modulePath = path.join(scratch, "minimal.ts");
writeFileSync(modulePath, minimalModuleSource());

test("trace env try prints the instance, every ground-truth call with its output, and the verdict", () => {
  const result = spawnSync("node", [bin, "env", "try", path.join(root, "src/synthesis/environments/multi-step-completion.ts"), "--seed", "4"], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^multi_step_completion seed 4\nrequest: .+\n/);
  assert.match(result.stdout, /ground truth \(\d+ calls\):\n {2}\w+\(\{.*\}\)\n {4}→ /);
  assert.match(result.stdout, /verdict: reward 1, success true/);
});

test("trace env check exits 2 with the failing gate's report for a hostile module", () => {
  const hostile = path.join(scratch, "hostile.ts");
  writeFileSync(hostile, `import { execSync } from "node:child_process";\nexport default { run: () => execSync("id") };\n`);
  const result = spawnSync("node", [bin, "env", "check", hostile, "--target", "tau2-airline"], { encoding: "utf8" });
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stdout, /FAIL compiles and exports the SDK shape: load: import: .*"node:child_process"/);
  assert.match(result.stdout, /6 gate\(s\) failed/);
});

test("env check validates and, with a policy endpoint, calibrates", async () => {
  // A base policy that always declines: the module is too hard for it.
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "Sorry, I cannot do that." })));
  try {
    const lines: string[] = [];
    const passed = await runEnvCheck(modulePath, { target: "tau2-airline", seeds: "5", policyUrl: server.baseUrl, policyModel: "base", calibrationSeeds: "3", samples: "2", json: true }, (line) => lines.push(line));
    assert.equal(passed, false);
    const output = lines.join("\n");
    assert.match(output, /all gates passed/);
    assert.match(output, /FAIL calibration: mean reward 0\.000, success 0\.0%, sd 0\.000, constant groups 100\.0%, informative 0\.0%, all-0 groups 100\.0%/);
    const summary = JSON.parse(lines.at(-1) as string) as { passed: boolean; calibration: { seeds: number } };
    assert.deepEqual([summary.passed, summary.calibration.seeds], [false, 3]);
  } finally {
    await server.close();
  }
});

test("trace synthesize writes module.ts and report.json per kept capability and resumes", async () => {
  const run = path.join(scratch, "run");
  mkdirSync(path.join(run, "analysis"), { recursive: true });
  const row = (skill: string, status: string) => ({ skill, description: `the ${skill} capability`, mean_cov: 0.5, std_cov: 0, mean_delta: 0.3, std_delta: 0, n_runs_passed: 3, n_runs_total: 3, passes_consistency: true, example_failed_cases: ["task 7"], status });
  writeFileSync(path.join(run, "analysis", "selected_capabilities.json"), JSON.stringify([row("minimal_task", "kept"), row("ignored_skill", "rejected")]));
  writeFileSync(path.join(run, "config.json"), JSON.stringify({ env: "tau2-airline" }));
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "```ts\n" + minimalModuleSource() + "```" })));
  try {
    const lines: string[] = [];
    const options = { generatorUrl: server.baseUrl, generatorModel: "writer" };
    assert.equal(await runSynthesize(run, options, (line) => lines.push(line)), true);
    const directory = path.join(run, "environments", "minimal_task");
    assert.equal(readFileSync(path.join(directory, "module.ts"), "utf8"), minimalModuleSource());
    const report = JSON.parse(readFileSync(path.join(directory, "report.json"), "utf8")) as { done: boolean; bestAttempt: number; attempts: unknown[] };
    assert.deepEqual([report.done, report.bestAttempt, report.attempts.length], [true, 1, 1]);
    assert.equal(existsSync(path.join(run, "environments", "ignored_skill")), false);
    assert.equal(server.received.length, 1);

    const again: string[] = [];
    assert.equal(await runSynthesize(run, options, (line) => again.push(line)), true);
    assert.match(again.join("\n"), /minimal_task: done already, skipped/);
    assert.equal(server.received.length, 1, "a done capability is not regenerated");
  } finally {
    await server.close();
  }
});

test("trace synthesize reads a trace run directory: its τ² target, policy and reference analysis", async () => {
  const run = path.join(scratch, "pipeline-run");
  mkdirSync(path.join(run, "analysis", "reference"), { recursive: true });
  const row = { skill: "minimal_task", description: "the capability", mean_cov: 0.5, std_cov: 0, mean_delta: 0.3, std_delta: 0, n_runs_passed: 1, n_runs_total: 1, passes_consistency: true, example_failed_cases: [], status: "kept" };
  writeFileSync(path.join(run, "analysis", "reference", "selected_capabilities.json"), JSON.stringify([row]));
  writeFileSync(path.join(run, "config.json"), JSON.stringify({ name: "x", model: { servedModelName: "base" }, target: { kind: "tau2", dataDirectory: tau2DataDirectory(), domains: ["retail"] }, analysis: { labeler: "reference" } }));
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "```ts\n" + minimalModuleSource() + "```" })));
  try {
    await runSynthesize(run, { generatorUrl: server.baseUrl, generatorModel: "writer" }, () => undefined);
    const request = (server.received[0]?.body.messages as { content: string }[])[1]?.content ?? "";
    assert.match(request, /minimal_task/, "the kept capability of analysis/reference/ is generated");
    assert.match(request, /get_order_details/, "the run's τ² domain (retail) gives the target's tools");
    assert.match(request, /# Retail agent policy/, "and its policy");
    assert.equal((JSON.parse(readFileSync(path.join(run, "environments", "minimal_task", "report.json"), "utf8")) as { target: string }).target, "tau2-retail");
  } finally {
    await server.close();
  }
});
