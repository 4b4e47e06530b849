/**
 * `scripts/paired-variant-copy.sh` (the device's paired variants): the copy keeps the trained adapters and every
 * other method's result, and drops what TRACE and the merge baseline derive from the adapters, so that a rerun of
 * `trace run` with another merge or routing setting re-evaluates only those two.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { scratchDirectory } from "../testing/scratch-directory.js";

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../scripts/paired-variant-copy.sh");

function touch(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "{}");
}

test("paired-variant-copy: keeps the adapters and the other methods' results, drops TRACE's and merge's", () => {
  const scratch = scratchDirectory("paired-");
  const from = path.join(scratch, "run");
  const kept = ["config.json", "stages/route.json", "adapters/precondition/adapter_config.json", "routing/merged-adapter/adapter_config.json", "compare/seed-1/trace/s1-precondition/adapter_config.json", "compare/seed-1/grpo-target/result.json", "compare/seed-1/gepa/result.json"];
  const dropped = ["stages/compare.json", "compare/episodes.sqlite", "compare/episodes.sqlite-wal", "compare/comparison.md", "compare/comparison.csv", "compare/seed-1/trace/result.json", "compare/seed-1/trace/merged/snapshot-0/adapter_config.json", "compare/seed-1/merge/result.json", "compare/seed-1/merge/adapter/adapter_config.json", "compare/seed-2/trace/result.json"];
  for (const file of [...kept, ...dropped]) touch(path.join(from, file));
  const to = path.join(scratch, "variant");
  touch(path.join(to, "stale.json"));
  const copied = spawnSync("bash", [script, from, to], { encoding: "utf8" });
  assert.equal(copied.status, 0, copied.stderr);
  for (const file of kept) assert.ok(existsSync(path.join(to, file)), `kept ${file}`);
  for (const file of dropped) assert.ok(!existsSync(path.join(to, file)), `dropped ${file}`);
  assert.ok(!existsSync(path.join(to, "stale.json")), "the target directory starts afresh");
  for (const file of [...kept, ...dropped]) assert.ok(existsSync(path.join(from, file)), `the source is untouched: ${file}`);
});

test("paired-variant-copy: a run without a comparison is refused with one line naming it", () => {
  const scratch = scratchDirectory("paired-");
  touch(path.join(scratch, "run", "config.json"));
  const copied = spawnSync("bash", [script, path.join(scratch, "run"), path.join(scratch, "variant")], { encoding: "utf8" });
  assert.equal(copied.status, 1);
  assert.match(copied.stderr.trim(), /^paired-variant-copy: .*run has no compare\/ directory/);
  assert.ok(!existsSync(path.join(scratch, "variant")));
});
