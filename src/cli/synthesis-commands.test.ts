import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { minimalModuleSource } from "../testing/sandbox-test-modules.js";
import { forgingErrorModuleSource, forgingTextModuleSource, loopingModuleSource, namedReservationModuleSource } from "../testing/hostile-test-modules.js";
import { tau2DataDirectory } from "../testing/shared-data.js";
import { runEnvCheck, runEnvTry, runSynthesize } from "./synthesis-commands.js";

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
  assert.match(result.stdout, /1 gate\(s\) failed, 8 not run/);
});

/** Writes a module source into the scratch directory; returns its path. */
function moduleFile(name: string, source: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, source);
  return file;
}

test("env check stops at the first failing gate; --all-gates runs every gate", async () => {
  const lax = moduleFile("lax.ts", namedReservationModuleSource("lax"));
  const stopped: string[] = [];
  assert.equal(await runEnvCheck(lax, { target: "tau2-airline", seeds: "5" }, (line) => stopped.push(line)), false);
  const output = stopped.join("\n");
  assert.match(output, /FAIL a changed argument fails: solved 5\/5 seeds/);
  assert.match(output, /SKIP unrequested writes fail: not run: stopped at the first failing gate/);
  assert.match(output, /1 gate\(s\) failed, 2 not run\nstopped at the first failing gate; --all-gates runs every gate$/);

  const all: string[] = [];
  assert.equal(await runEnvCheck(lax, { target: "tau2-airline", seeds: "5", allGates: true }, (line) => all.push(line)), false);
  assert.doesNotMatch(all.join("\n"), /SKIP|--all-gates/);
  assert.match(all.join("\n"), /FAIL unrequested writes fail[\s\S]*PASS verdicts stable over many calls[\s\S]*2 gate\(s\) failed$/);
});

test("trace env check on a module whose every call loops forever fails in well under 30 s", () => {
  const started = Date.now();
  const result = spawnSync("node", [bin, "env", "check", moduleFile("looping.ts", loopingModuleSource()), "--all-gates"], { encoding: "utf8" });
  assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stdout, /^FAIL compiles and exports the SDK shape: generate\(0\) failed: generate: timeout/);
  assert.match(result.stdout, /1 gate\(s\) failed, 8 not run/);
});

/** True when the text holds a control character other than the line feeds between lines. */
const hasControlCharacter = (text: string): boolean => [...text].some((character) => character !== "\n" && (character < " " || (character >= "\u007f" && character <= "\u009f")));

test("env check and env try show module text escaped and quoted: no forged PASS line, no escape sequence", async () => {
  const check: string[] = [];
  await runEnvCheck(moduleFile("forging-error.ts", forgingErrorModuleSource()), { target: "tau2-airline", seeds: "3", json: true }, (line) => check.push(line));
  const checkOutput = check.join("\n");
  assert.ok(!hasControlCharacter(checkOutput), checkOutput);
  assert.ok(!checkOutput.split("\n").some((line) => line.startsWith("PASS all gates") || line === "all gates passed"), checkOutput);
  assert.match(checkOutput, /generate: throw: module says: "Error: boom\\n\\u001b\[2J\\u001b\[32mPASS all gates passed/);
  assert.equal((JSON.parse(check.at(-1) as string) as { passed: boolean }).passed, false, "the --json line stays valid JSON");

  const tried: string[] = [];
  assert.equal(await runEnvTry(moduleFile("forging-text.ts", forgingTextModuleSource()), { seed: "0" }, (line) => tried.push(line)), true);
  const tryOutput = tried.join("\n");
  assert.ok(!hasControlCharacter(tryOutput), tryOutput);
  assert.match(tryOutput, /\nrequest: "boom\\n\\u001b\[2J\\u001b\[32mPASS all gates passed\\u001b\[0m\\u009b31mR\d+"\n/);
  assert.match(tryOutput, /\n {4}→ "boom\\n\\u001b\[2J/);

  const failed: string[] = [];
  assert.equal(await runEnvTry(moduleFile("forging-error-try.ts", forgingErrorModuleSource()), { seed: "0" }, (line) => failed.push(line)), false);
  assert.equal(failed.length, 1);
  assert.match(failed[0] ?? "", /^the module failed: generate: throw: module says: "Error: boom\\n\\u001b/);
});

test("a missing module file and a count that is not positive are one-line errors", () => {
  const missing = path.join(scratch, "no-such-module.ts");
  for (const command of ["check", "try"]) {
    const result = spawnSync("node", [bin, "env", command, missing], { encoding: "utf8" });
    assert.equal(result.status, 1);
    assert.equal(result.stderr, `trace: module file not found: ${JSON.stringify(missing)}\n`);
  }
  const negative = spawnSync("node", [bin, "env", "check", modulePath, "--seeds", "-5"], { encoding: "utf8" });
  assert.equal(negative.status, 1);
  assert.equal(negative.stderr, 'trace: --seeds must be an integer ≥ 1, got "-5"\n');
  assert.equal(negative.stdout, "");
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
    assert.match(output, /FAIL calibration: mean reward 0\.000 ± 0\.000, success 0\.0%, sd 0\.000, constant groups 100\.0%, informative 0\.0%, all-0 groups 100\.0%/);
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
