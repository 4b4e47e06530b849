import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadTau2Domain } from "../../envs/tau2/domains.js";
import { createTau2Environment } from "../../envs/tau2/environment.js";
import { tau2DomainDirectory } from "../../testing/shared-data.js";
import { checkDeterminism, nativeModuleRunner, playDoNothing, playReadOnly, playSolution } from "../../envs/modules/index.js";
import { CAPABILITY_ENVIRONMENTS } from "./index.js";

const seeds = Array.from({ length: 100 }, (_, index) => index);
const targetTools = {
  airline: createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline"))),
  retail: createTau2Environment(loadTau2Domain("retail", tau2DomainDirectory("retail"))),
};

for (const { module, domain } of CAPABILITY_ENVIRONMENTS) {
  const runner = nativeModuleRunner(module);

  test(`${module.capability}: same seed, same instance; solution, tools and verifier deterministic (100 seeds)`, async () => {
    for (const seed of seeds.slice(0, 100)) assert.deepEqual(await runner.generate(seed), await runner.generate(seed));
    const report = await checkDeterminism(runner, seeds);
    assert.deepEqual(report.mismatches, []);
    assert.notDeepEqual(await runner.generate(1), await runner.generate(2));
  });

  test(`${module.capability}: the ground truth succeeds on ≥ 99% of 100 seeds; do-nothing and read-only fail on all`, async () => {
    let solved = 0;
    for (const seed of seeds) {
      const verdict = await playSolution(runner, seed);
      if (verdict.success && verdict.reward === 1) solved += 1;
      assert.equal((await playDoNothing(runner, seed)).success, false, `do-nothing succeeded on seed ${seed}`);
      assert.equal((await playReadOnly(runner, seed)).success, false, `read-only succeeded on seed ${seed}`);
    }
    assert.ok(solved >= 99, `ground truth solved ${solved}/100`);
  });

  test(`${module.capability}: every tool is the τ² ${domain} tool of the same name and schema`, () => {
    const target = targetTools[domain];
    const specs = new Map(target.tools(target.tasks()[0]!).map((spec) => [spec.function.name, spec]));
    const declaredNew = new Set((module.newTools ?? []).map((tool) => tool.name));
    for (const tool of module.tools) {
      if (declaredNew.has(tool.function.name)) continue;
      const spec = specs.get(tool.function.name);
      assert.ok(spec !== undefined, `${tool.function.name} is not a τ² ${domain} tool`);
      assert.deepEqual(tool.function.parameters, spec.function.parameters, tool.function.name);
      assert.equal(tool.function.description, spec.function.description, tool.function.name);
    }
    for (const name of module.readTools) assert.ok(module.tools.some((tool) => tool.function.name === name), name);
  });
}

test("environment files are self-contained: only type imports, which transpiling erases", () => {
  const directory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../src/synthesis/environments");
  for (const { file } of CAPABILITY_ENVIRONMENTS) {
    const source = readFileSync(path.join(directory, file), "utf8");
    const imports = source.split("\n").filter((line) => /^\s*(import|export)\b.*\bfrom\b/.test(line));
    assert.ok(imports.every((line) => /^import type /.test(line)), `${file}: ${imports.join(" | ")}`);
    assert.ok(!/\b(Math\.random|Date\.now|new Date|require\(|process\.(env|exit|argv))/.test(source), file);
  }
});
