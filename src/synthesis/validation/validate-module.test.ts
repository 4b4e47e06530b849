import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CAPABILITY_ENVIRONMENTS } from "../environments/index.js";
import type { CapabilityModule, ModuleInstance } from "../../envs/modules/capability-module.js";
import { nativeModuleRunner } from "../../envs/modules/module-runner.js";
import type { GateResult, ValidationReport } from "./gate-result.js";
import { formatValidationReport } from "./gate-result.js";
import { GATE_NAMES, validateModule, validateModuleSource } from "./validate-module.js";
import { parseSynthesisTarget } from "./target-tools.js";

const environmentsSource = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src/synthesis/environments");
const targetOf = (domain: "airline" | "retail") => parseSynthesisTarget(domain === "airline" ? "tau2-airline" : "tau2-retail");

function failedGates(report: ValidationReport): string[] {
  return report.gates.filter((gate) => !gate.passed).map((gate) => gate.name);
}

function gate(report: ValidationReport, name: (typeof GATE_NAMES)[number]): GateResult {
  const found = report.gates.find((candidate) => candidate.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

for (const { module, domain, file } of CAPABILITY_ENVIRONMENTS) {
  test(`${module.capability} passes every gate natively`, async () => {
    const report = await validateModule(nativeModuleRunner(module), { target: targetOf(domain) });
    assert.deepEqual(failedGates(report), [], formatValidationReport(report));
  });

  test(`${module.capability} passes every gate in the sandbox (12 seeds, a short stability check: to keep the suite fast)`, async () => {
    const source = readFileSync(path.join(environmentsSource, file), "utf8");
    const report = await validateModuleSource({ source, target: targetOf(domain), seeds: Array.from({ length: 12 }, (_, seed) => seed), determinismSeeds: [0, 1, 2], stabilityCalls: 0, lateSeeds: 1 });
    assert.deepEqual(failedGates(report), [], formatValidationReport(report));
    assert.deepEqual(report.gates.map((gate) => gate.name), [...GATE_NAMES]);
  });
}

const base = CAPABILITY_ENVIRONMENTS[0] as { module: CapabilityModule; domain: "airline" | "retail" };

test("a verifier that always succeeds fails the do-nothing, read-only and adversarial gates (not the stability gate: it does not change)", async () => {
  const broken: CapabilityModule = { ...base.module, verify: () => ({ reward: 1, success: true, breakdown: {} }) };
  const report = await validateModule(nativeModuleRunner(broken), { target: targetOf(base.domain), seeds: [0, 1, 2, 3, 4] });
  assert.deepEqual(failedGates(report), ["do-nothing policy fails", "read-only policy fails", "a changed argument fails", "unrequested writes fail"]);
});

test("a generator that changes between calls fails the determinism and stability gates", async () => {
  let calls = 0;
  const drifting: CapabilityModule = {
    ...base.module,
    generate: (seed, sdk): ModuleInstance => {
      const instance = base.module.generate(seed, sdk);
      calls += 1;
      return { ...instance, facts: { ...instance.facts, drift: calls } };
    },
  };
  const report = await validateModule(nativeModuleRunner(drifting), { target: targetOf(base.domain), seeds: [0, 1, 2, 3, 4] });
  assert.deepEqual(failedGates(report), ["deterministic per seed", "verdicts stable over many calls"]);
  assert.match(gate(report, "deterministic per seed").details[0] ?? "", /seed 0: generate differs/);
  assert.match(gate(report, "verdicts stable over many calls").details[0] ?? "", /generate returns a different instance after \d+ verifier calls/);
});

test("a tool whose argument schema changed fails the tool gate; declaring an unknown tool new with a reason passes", async () => {
  const [first, ...rest] = base.module.tools;
  assert.ok(first !== undefined);
  const changed = { ...first, function: { ...first.function, parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } } };
  const report = await validateModule(nativeModuleRunner({ ...base.module, tools: [changed, ...rest] }), { target: targetOf(base.domain), seeds: [0, 1], stabilityCalls: 0 });
  assert.ok(failedGates(report).includes("tools match the target"));
  assert.match(gate(report, "tools match the target").details.join("\n"), new RegExp(`${first.function.name}: argument schema differs`));

  const extra = { type: "function" as const, function: { name: "count_reservations", description: "Counts.", parameters: { type: "object", properties: {} } } };
  const undeclared = await validateModule(nativeModuleRunner({ ...base.module, tools: [...base.module.tools, extra] }), { target: targetOf(base.domain), seeds: [0], stabilityCalls: 0 });
  assert.match(gate(undeclared, "tools match the target").details[0] ?? "", /count_reservations: no target tool/);
  const declared = await validateModule(nativeModuleRunner({ ...base.module, tools: [...base.module.tools, extra], newTools: [{ name: "count_reservations", reason: "counting is the capability" }] }), {
    target: targetOf(base.domain),
    seeds: [0],
    stabilityCalls: 0,
  });
  assert.equal(gate(declared, "tools match the target").passed, true);
});

test("a module that does not load fails the shape gate with the sandbox's report; the rest are not run", async () => {
  const report = await validateModuleSource({ source: `import fs from "node:fs"; export default {};`, target: parseSynthesisTarget("tau2-airline") });
  assert.equal(report.passed, false);
  assert.match(report.gates[0]?.details[0] ?? "", /import.*"node:fs"/);
  assert.ok(report.gates.slice(1).every((later) => !later.passed && later.notRun === true && later.details[0] === "not run: the module did not load"));
});
