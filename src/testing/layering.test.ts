/** The layering check of `npm test` (`.dependency-cruiser.cjs`) refuses an upward import and a cycle. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-layering-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the project's dependency check on a tree of the given files. */
function check(files: Record<string, string>): { status: number | null; output: string } {
  const tree = mkdtempSync(path.join(scratch, "tree-"));
  for (const name of [".dependency-cruiser.cjs", "tsconfig.json"]) copyFileSync(path.join(root, name), path.join(tree, name));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
    writeFileSync(path.join(tree, file), text);
  }
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"), "src", "--config", ".dependency-cruiser.cjs", "--output-type", "err"], { cwd: tree, encoding: "utf8" });
  return { status: result.status, output: result.stdout + result.stderr };
}

test("an upward import (spec → pipeline) fails the check; the same import downward passes; a test file may import upward", () => {
  const upward = check({ "src/spec/a.ts": 'import { b } from "../pipeline/b.js";\nexport const a = b;\n', "src/pipeline/b.ts": "export const b = 1;\n" });
  assert.equal(upward.status, 1, upward.output);
  assert.match(upward.output, /layer-spec: src\/spec\/a\.ts → src\/pipeline\/b\.ts/);
  const downward = check({ "src/pipeline/a.ts": 'import { b } from "../spec/b.js";\nexport const a = b;\n', "src/spec/b.ts": "export const b = 1;\n" });
  assert.equal(downward.status, 0, downward.output);
  const testFile = check({ "src/envs/a.test.ts": 'import { b } from "../rollout/b.js";\nexport const a = b;\n', "src/rollout/b.ts": "export const b = 1;\n" });
  assert.equal(testFile.status, 0, testFile.output);
});

test("a module-level cycle fails the check", () => {
  const cycle = check({ "src/envs/x.ts": 'import { y } from "./y.js";\nexport const x = (): number => y();\n', "src/envs/y.ts": 'import { x } from "./x.js";\nexport const y = (): number => x();\n' });
  assert.equal(cycle.status, 1, cycle.output);
  assert.match(cycle.output, /no-circular/);
});
