import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { importTau2Results } from "../../envs/tau2/results-exchange.js";
import { openTrajectoryStore } from "../../store/trajectory-store.js";
import { tau2DataDirectory } from "../../testing/shared-data.js";
import { EXAMPLE_CHARACTERS, EXAMPLE_TRAJECTORIES, failedTrajectoryExamples } from "./failed-trajectory-examples.js";

test("failed examples are rendered from the run's store; unknown keys and store-less runs pass the keys on", () => {
  const run = mkdtempSync(path.join(os.tmpdir(), "trace-examples-"));
  try {
    assert.deepEqual(failedTrajectoryExamples(path.join(run, "store.sqlite"), ["airline:1", "airline:2"]), ["airline:1", "airline:2"]);
    const store = openTrajectoryStore(path.join(run, "store.sqlite"));
    importTau2Results(store, path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json"), "tau2-airline");
    const failed = store.listEpisodes({ status: "finished" }).find((episode) => episode.success !== true);
    store.close();
    assert.ok(failed);
    const key = `airline:${failed.taskId}`;
    const examples = failedTrajectoryExamples(path.join(run, "store.sqlite"), [key, "airline:no-such-task", "airline:x", "airline:y"]);
    assert.equal(examples.length, EXAMPLE_TRAJECTORIES);
    assert.match(examples[0]!, new RegExp(`^### ${key} — FAILED`));
    assert.match(examples[0]!, /\[agent calls\]|\[agent\]/);
    assert.ok(examples[0]!.length <= EXAMPLE_CHARACTERS + 20);
    assert.equal(examples[1], "airline:no-such-task");
  } finally {
    rmSync(run, { recursive: true, force: true });
  }
});
