import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { adapterCheckpoints, checkpointAt } from "./grpo-snapshots.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-snapshots-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("checkpoints are the saved step directories in iteration order; a step without an adapter is not one", () => {
  for (const step of ["step-0008", "step-0004", "step-0012"]) {
    mkdirSync(path.join(scratch, step), { recursive: true });
    writeFileSync(path.join(scratch, step, "adapter_config.json"), "{}");
  }
  mkdirSync(path.join(scratch, "step-0016"));
  mkdirSync(path.join(scratch, "state", "step-0012"), { recursive: true });
  const checkpoints = adapterCheckpoints(scratch);
  assert.deepEqual(checkpoints.map((checkpoint) => checkpoint.iteration), [4, 8, 12]);
  assert.equal(checkpoints[0]!.adapterPath, path.join(scratch, "step-0004"));
  assert.deepEqual(adapterCheckpoints(path.join(scratch, "missing")), []);
});

test("the checkpoint at an iteration is the latest one saved at or before it", () => {
  const checkpoints = [4, 8, 12].map((iteration) => ({ iteration, adapterPath: `step-${iteration}` }));
  assert.equal(checkpointAt(checkpoints, 3), null);
  assert.equal(checkpointAt(checkpoints, 4)?.iteration, 4);
  assert.equal(checkpointAt(checkpoints, 11)?.iteration, 8);
  assert.equal(checkpointAt(checkpoints, 40)?.iteration, 12);
});

test("a checkpoint's episodes are those its iterations sampled (metrics.jsonl, dynamic sampling's rounds included)", () => {
  const directory = path.join(scratch, "with-metrics");
  for (const step of ["step-0001", "step-0002"]) {
    mkdirSync(path.join(directory, step), { recursive: true });
    writeFileSync(path.join(directory, step, "adapter_config.json"), "{}");
  }
  writeFileSync(path.join(directory, "metrics.jsonl"), [{ iteration: 1, episodes: 8 }, { iteration: 2, episodes: 24 }].map((line) => JSON.stringify(line) + "\n").join(""));
  assert.deepEqual(adapterCheckpoints(directory).map((checkpoint) => checkpoint.episodes), [8, 32]);
});
