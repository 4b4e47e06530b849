import assert from "node:assert/strict";
import { test } from "node:test";
import type { GateResult, ValidationReport } from "./gate-result.js";
import { formatValidationReport } from "./gate-result.js";
import { FORGED_TEXT, forgingErrorModuleSource, loopingModuleSource, loopingToolModuleSource, namedReservationModuleSource } from "../../testing/hostile-test-modules.js";
import { escapeControlCharacters, moduleSays } from "./module-text.js";
import type { GATE_NAMES } from "./validate-module.js";
import { validateModuleSource } from "./validate-module.js";
import { parseSynthesisTarget } from "./target-tools.js";

const seeds = Array.from({ length: 10 }, (_, seed) => seed);
const validate = (source: string, options: { stopAtFirstFailure?: boolean } = {}) => validateModuleSource({ source, target: parseSynthesisTarget("tau2-airline"), seeds, ...options });

function failedGates(report: ValidationReport): string[] {
  return report.gates.filter((gate) => !gate.passed && gate.notRun !== true).map((gate) => gate.name);
}

function gate(report: ValidationReport, name: (typeof GATE_NAMES)[number]): GateResult {
  const found = report.gates.find((candidate) => candidate.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

test("an honest module (one reservation named among several) passes every gate in the sandbox", async () => {
  const report = await validate(namedReservationModuleSource("honest"));
  assert.deepEqual(failedGates(report), [], formatValidationReport(report));
  assert.match(gate(report, "verdicts stable over many calls").details[0] ?? "", /^\d{3,} verifier calls in one instance .*identical in a fresh instance/);
});

test("a lax verifier (success if any cancellation succeeded) fails the changed-argument and unrequested-writes gates", async () => {
  const report = await validate(namedReservationModuleSource("lax"));
  assert.deepEqual(failedGates(report), ["a changed argument fails", "unrequested writes fail"], formatValidationReport(report));
  assert.match(gate(report, "a changed argument fails").details[0] ?? "", /^solved 10\/10 seeds/);
  assert.match(gate(report, "a changed argument fails").details[1] ?? "", /seed 0 solved \(reward 1\): call 2 changed: cancel_reservation reservation_id "R\d+" → "R\d+"/);
  assert.match(gate(report, "unrequested writes fail").details.join("\n"), /extra write: cancel_reservation/);
  assert.match(gate(report, "unrequested writes fail").details.join("\n"), /extra writes \(cancel_reservation over every entity\)/);
});

test("a time-bomb verifier (honest for its first 400 calls, then reward 1) fails the stability gate", async () => {
  const report = await validate(namedReservationModuleSource("time-bomb", 400));
  assert.deepEqual(failedGates(report), ["verdicts stable over many calls"], formatValidationReport(report));
  assert.match(gate(report, "verdicts stable over many calls").details[0] ?? "", /the verdict changed after 400 verifier calls: \{.*"success":false\} the first time, \{.*"success":true\} now/);
});

test("a time bomb that answers repeated inputs from memory is caught on new seeds", async () => {
  const report = await validate(namedReservationModuleSource("memoizing-time-bomb", 400));
  assert.deepEqual(failedGates(report), ["verdicts stable over many calls"], formatValidationReport(report));
  assert.match(gate(report, "verdicts stable over many calls").details.join("\n"), /the do-nothing policy solves [1-9]\d*\/\d+ new seeds played after the other gates, 0\.0% of the seeds before/);
});

test("stopAtFirstFailure: the first failing gate stops the rest; by default every gate runs", async () => {
  const stopped = await validate(namedReservationModuleSource("lax"), { stopAtFirstFailure: true });
  assert.deepEqual(failedGates(stopped), ["a changed argument fails"]);
  assert.deepEqual(stopped.gates.filter((result) => result.notRun === true).map((result) => result.name), ["unrequested writes fail", "verdicts stable over many calls"]);
  assert.equal(stopped.stoppedAtFirstFailure, true);
  assert.match(formatValidationReport(stopped), /SKIP unrequested writes fail: not run: stopped at the first failing gate \(a changed argument fails\)\n[\s\S]*1 gate\(s\) failed, 2 not run$/);
});

test("a module whose every call loops forever fails at its first generate, well under 30 s, even running all gates", async () => {
  const started = Date.now();
  const report = await validate(loopingModuleSource());
  const seconds = (Date.now() - started) / 1000;
  assert.ok(seconds < 30, `took ${seconds} s`);
  assert.deepEqual(failedGates(report), ["compiles and exports the SDK shape"]);
  assert.match(gate(report, "compiles and exports the SDK shape").details[0] ?? "", /generate\(0\) failed: generate: timeout/);
  assert.ok(report.gates.slice(1).every((later) => later.notRun === true && /a module call timed out/.test(later.details[0] ?? "")));
});

test("a module whose runTool loops stops at the first call that times out", async () => {
  const started = Date.now();
  const report = await validate(loopingToolModuleSource());
  assert.ok(Date.now() - started < 30_000);
  assert.deepEqual(failedGates(report), ["deterministic per seed"]);
  assert.match(gate(report, "deterministic per seed").details.join("\n"), /stopped at seed 0: a module call timed out \(runTool: timeout/);
});

test("a module's text cannot forge report lines or reach the terminal as escape sequences", async () => {
  const report = await validate(forgingErrorModuleSource(), { stopAtFirstFailure: true });
  const text = formatValidationReport(report);
  assert.ok(![...text].some((character) => character !== "\n" && (character < " " || (character >= "\u007f" && character <= "\u009f"))), "no control character but the line breaks between report lines");
  assert.ok(text.split("\n").every((line) => /^(PASS|FAIL|SKIP) |^ {5}|^\d+ gate\(s\) failed|^all gates passed$/.test(line)), text);
  assert.ok(!text.split("\n").some((line) => line.startsWith("PASS all gates")));
  assert.match(text, /^FAIL compiles and exports the SDK shape: generate\(0\) failed: generate: throw: module says: "Error: boom\\n\\u001b\[2J\\u001b\[32mPASS all gates passed\\u001b\[0m\\u009b31m/);
});

test("module text helpers: JSON-style escapes, quoted and marked as the module's", () => {
  assert.equal(escapeControlCharacters("a\nb\u001b[0m\u009b\u2028\u202e"), "a\\nb\\u001b[0m\\u009b\\u2028\\u202e");
  assert.equal(escapeControlCharacters('{"a":"\\u001b"}'), '{"a":"\\u001b"}', "JSON text is left valid");
  assert.equal(moduleSays(FORGED_TEXT), 'module says: "boom\\n\\u001b[2J\\u001b[32mPASS all gates passed\\u001b[0m\\u009b31m"');
  assert.match(moduleSays("x".repeat(1000)), /^module says: "x{400}… \(600 more characters\)"$/);
});
