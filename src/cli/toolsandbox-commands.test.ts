import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { after, test } from "node:test";
import { toolSandboxDataDirectory } from "../testing/shared-data.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-toolsandbox-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const dataDirectory = toolSandboxDataDirectory();

test("trace toolsandbox grade --json re-scores the scripted checks (plain JSON) and ends with the summary", () => {
  const all = JSON.parse(gunzipSync(readFileSync(path.join(dataDirectory, "grading_checks.json.gz"))).toString("utf8")) as { scripted_checks: { expected: { similarity: number } }[] };
  const plain = path.join(scratch, "checks.json");
  const wrong = structuredClone(all.scripted_checks);
  wrong[0]!.expected.similarity = 0.5;
  writeFileSync(plain, JSON.stringify({ scripted_checks: all.scripted_checks }));
  const output = execFileSync("node", [bin, "toolsandbox", "grade", "--data-dir", dataDirectory, plain, "--json"], { encoding: "utf8" });
  const summary = JSON.parse(output.trim().split("\n").at(-1) as string) as { n: number; agree: number; results: { scenario: string; expected: number; recomputed: number }[] };
  assert.equal(summary.n, 10);
  assert.equal(summary.agree, 10);
  assert.deepEqual(Object.keys(summary.results[0]!), ["scenario", "expected", "recomputed"]);
  writeFileSync(plain, JSON.stringify({ scripted_checks: wrong }));
  const failing = spawnSync("node", [bin, "toolsandbox", "grade", "--data-dir", dataDirectory, plain, "--json"], { encoding: "utf8" });
  assert.equal(failing.status, 2);
  assert.equal((JSON.parse(failing.stdout.trim().split("\n").at(-1) as string) as { agree: number }).agree, 9);
});

test("an unknown scenario or a malformed file is one line naming the file", () => {
  const bad = path.join(scratch, "bad.json");
  writeFileSync(bad, JSON.stringify({ scripted_checks: [{ scenario: "no_such", appended_messages: [], expected: { milestone_similarity: 0, minefield_similarity: 0, similarity: 0, turn_count: 0, milestone_mapping: {}, minefield_mapping: {} } }] }));
  const unknown = spawnSync("node", [bin, "toolsandbox", "grade", "--data-dir", dataDirectory, bad], { encoding: "utf8" });
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /bad\.json: ToolSandbox has no scenario "no_such"/);
  writeFileSync(bad, JSON.stringify({ scripted_checks: [{ scenario: 3 }] }));
  const malformed = spawnSync("node", [bin, "toolsandbox", "grade", "--data-dir", dataDirectory, bad], { encoding: "utf8" });
  assert.equal(malformed.status, 1);
  assert.match(malformed.stderr, /bad\.json: .*scenario/);
});
