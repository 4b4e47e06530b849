import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { CAPABILITY_ENVIRONMENTS } from "../environments/index.js";
import type { CapabilityModule, ModuleInstance } from "../sdk/capability-module.js";
import { nativeModuleRunner } from "../sdk/module-runner.js";
import type { ValidationReport } from "./gate-result.js";
import { formatValidationReport } from "./gate-result.js";
import { GATE_NAMES, validateModule, validateModuleSource } from "./validate-module.js";

const environmentsSource = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src/synthesis/environments");
const targetOf = (domain: "airline" | "retail"): "tau2-airline" | "tau2-retail" => (domain === "airline" ? "tau2-airline" : "tau2-retail");

function failedGates(report: ValidationReport): string[] {
  return report.gates.filter((gate) => !gate.passed).map((gate) => gate.name);
}

for (const { module, domain, file } of CAPABILITY_ENVIRONMENTS) {
  test(`${module.capability} passes every gate natively`, async () => {
    const report = await validateModule(nativeModuleRunner(module), { target: targetOf(domain) });
    assert.deepEqual(failedGates(report), [], formatValidationReport(report));
  });

  test(`${module.capability} passes every gate in the sandbox (20 seeds, to keep the suite fast)`, async () => {
    const source = readFileSync(path.join(environmentsSource, file), "utf8");
    const report = await validateModuleSource({ source, target: targetOf(domain), seeds: Array.from({ length: 20 }, (_, seed) => seed), determinismSeeds: [0, 1, 2] });
    assert.deepEqual(failedGates(report), [], formatValidationReport(report));
    assert.deepEqual(report.gates.map((gate) => gate.name), [...GATE_NAMES]);
  });
}

const base = CAPABILITY_ENVIRONMENTS[0] as { module: CapabilityModule; domain: "airline" | "retail" };

test("a verifier that always succeeds fails the do-nothing and read-only gates", async () => {
  const broken: CapabilityModule = { ...base.module, verify: () => ({ reward: 1, success: true, breakdown: {} }) };
  const report = await validateModule(nativeModuleRunner(broken), { target: targetOf(base.domain), seeds: [0, 1, 2, 3, 4] });
  assert.deepEqual(failedGates(report), ["do-nothing policy fails", "read-only policy fails"]);
});

test("a generator that changes between calls fails the determinism gate only", async () => {
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
  assert.deepEqual(failedGates(report), ["deterministic per seed"]);
  assert.match(report.gates[1]?.details[0] ?? "", /seed 0: generate differs/);
});

test("a tool whose argument schema changed fails the tool gate; declaring an unknown tool new with a reason passes", async () => {
  const [first, ...rest] = base.module.tools;
  assert.ok(first !== undefined);
  const changed = { ...first, function: { ...first.function, parameters: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } } };
  const report = await validateModule(nativeModuleRunner({ ...base.module, tools: [changed, ...rest] }), { target: targetOf(base.domain), seeds: [0, 1] });
  assert.ok(failedGates(report).includes("tools match the target"));
  assert.match(report.gates[5]?.details.join("\n") ?? "", new RegExp(`${first.function.name}: argument schema differs`));

  const extra = { type: "function" as const, function: { name: "count_reservations", description: "Counts.", parameters: { type: "object", properties: {} } } };
  const undeclared = await validateModule(nativeModuleRunner({ ...base.module, tools: [...base.module.tools, extra] }), { target: targetOf(base.domain), seeds: [0] });
  assert.match(undeclared.gates[5]?.details[0] ?? "", /count_reservations: no target tool/);
  const declared = await validateModule(nativeModuleRunner({ ...base.module, tools: [...base.module.tools, extra], newTools: [{ name: "count_reservations", reason: "counting is the capability" }] }), {
    target: targetOf(base.domain),
    seeds: [0],
  });
  assert.equal(declared.gates[5]?.passed, true);
});

test("a module that does not load fails the shape gate with the sandbox's report; the rest are not run", async () => {
  const report = await validateModuleSource({ source: `import fs from "node:fs"; export default {};`, target: "tau2-airline" });
  assert.equal(report.passed, false);
  assert.match(report.gates[0]?.details[0] ?? "", /import.*"node:fs"/);
  assert.ok(report.gates.slice(1).every((gate) => !gate.passed && gate.details[0] === "not run: the module did not load"));
});
