import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { readTau2Results } from "./results-file.js";
import { tau2DataDirectory } from "../../testing/shared-data.js";
import { exportTau2Results, importTau2Results, storedTau2Tasks } from "./results-exchange.js";
import { exportJsonl } from "../../store/jsonl-export.js";
import { openTrajectoryStore, type EpisodeRecord } from "../../store/trajectory-store.js";

const root = mkdtempSync(path.join(os.tmpdir(), "trace-store-exchange-"));
after(() => rmSync(root, { recursive: true, force: true }));
const resultsFile = path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");
const ENV = "tau2-airline";

function byKey(records: readonly EpisodeRecord[]): Map<string, EpisodeRecord> {
  return new Map(records.map((record) => [`${record.taskId}/${record.trial}`, record]));
}

test("imports the real airline results file: 30 simulations, 11 with reward 1", () => {
  const store = openTrajectoryStore(path.join(root, "import", "store.sqlite"));
  assert.equal(importTau2Results(store, resultsFile, ENV), 30);
  const summary = store.summary({ environment: ENV });
  assert.equal(summary.finished, 30);
  assert.equal(summary.passed, 11);
  assert.equal(summary.graded, 30);
  assert.ok(Math.abs((summary.passRate ?? 0) - 11 / 30) < 1e-12);

  const { simulations } = readTau2Results(resultsFile);
  const stored = byKey(store.listEpisodes({ environment: ENV }));
  for (const simulation of simulations) {
    const record = stored.get(`${simulation.taskId}/${simulation.trial}`);
    assert.ok(record);
    assert.deepEqual(record.messages, simulation.messages);
    assert.equal(record.reward, simulation.recordedRewardInfo?.reward);
    assert.deepEqual(record.sourceRewardInfo, simulation.recordedRewardInfo);
    assert.equal(record.termination, simulation.termination);
    assert.equal(record.extra?.id, simulation.id);
    assert.equal(record.startedAt, simulation.extra.start_time);
  }
  // Importing again replaces rather than duplicates.
  importTau2Results(store, resultsFile, ENV);
  assert.equal(store.summary().total, 30);

  // Each episode keeps its task from the file, so the run exports back without a data directory.
  const { tasks } = readTau2Results(resultsFile);
  const kept = storedTau2Tasks(store, ENV);
  assert.deepEqual([...kept.keys()].sort(), [...new Set(simulations.map((simulation) => simulation.taskId))].sort());
  for (const [id, task] of kept) assert.deepEqual(task, tasks.find((candidate) => candidate.id === id));
  assert.equal(storedTau2Tasks(store, "tau2-retail").size, 0);
  store.close();
});

test("export → import round-trip keeps messages and rewards", () => {
  const first = openTrajectoryStore(path.join(root, "round-trip-1", "store.sqlite"));
  importTau2Results(first, resultsFile, ENV);
  const original = readTau2Results(resultsFile);
  const exported = path.join(root, "exported.json");
  assert.equal(exportTau2Results(first, { environment: ENV, file: exported, info: original.file.info, tasks: original.tasks }), 30);

  const reread = readTau2Results(exported);
  assert.equal(reread.simulations.length, 30);
  assert.equal(reread.simulations.filter((simulation) => simulation.recordedRewardInfo?.reward === 1).length, 11);
  assert.deepEqual(reread.simulations.map((simulation) => simulation.id), original.simulations.map((simulation) => simulation.id));

  const second = openTrajectoryStore(path.join(root, "round-trip-2", "store.sqlite"));
  importTau2Results(second, exported, ENV);
  const before = byKey(first.listEpisodes());
  const afterRoundTrip = second.listEpisodes();
  assert.equal(afterRoundTrip.length, 30);
  for (const record of afterRoundTrip) {
    const earlier = before.get(`${record.taskId}/${record.trial}`);
    assert.ok(earlier);
    assert.deepEqual(record.messages, earlier.messages);
    assert.equal(record.reward, earlier.reward);
    assert.equal(record.success, earlier.success);
    assert.deepEqual(record.rewardInfo, earlier.rewardInfo);
    assert.equal(record.termination, earlier.termination);
  }
  first.close();
  second.close();
});

test("episodes graded here export with a τ² reward_info built from their reward", () => {
  const store = openTrajectoryStore(path.join(root, "native", "store.sqlite"));
  const key = { environment: ENV, taskId: "5", trial: 1 };
  store.claimEpisode(key);
  store.finishEpisode(key, {
    ...key,
    termination: "user_stop",
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "bye", tokens: { promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [-0.5] } },
    ],
    reward: { reward: 1, success: true, breakdown: { DB: 1 }, details: { db_check: { db_match: true, db_reward: 1 } } },
  });
  const file = path.join(root, "native.json");
  exportTau2Results(store, { environment: ENV, file, info: {}, tasks: [] });
  const [simulation] = readTau2Results(file).simulations;
  assert.ok(simulation);
  assert.equal(simulation.id, `${ENV}/5/1`);
  assert.equal(simulation.trial, 1);
  assert.equal(simulation.termination, "user_stop");
  assert.deepEqual(simulation.messages, [{ role: "user", content: "hi" }, { role: "assistant", content: "bye" }]);
  assert.equal(simulation.recordedRewardInfo?.reward, 1);
  assert.deepEqual(simulation.recordedRewardInfo?.reward_breakdown, { DB: 1 });
  assert.deepEqual(simulation.recordedRewardInfo?.db_check, { db_match: true, db_reward: 1 });
  store.close();
});

test("exports JSON Lines with tokens inline", () => {
  const store = openTrajectoryStore(path.join(root, "jsonl", "store.sqlite"));
  importTau2Results(store, resultsFile, ENV);
  const key = { environment: "other", taskId: "t", trial: 0 };
  const messages = [{ role: "assistant" as const, content: "x", tokens: { promptTokenIds: [3], completionTokenIds: [4, 5], completionLogprobs: [-1, -2] } }];
  store.finishEpisode(key, { ...key, messages, termination: "agent_stop" });
  store.claimEpisode({ ...key, taskId: "u" });
  store.failEpisode({ ...key, taskId: "u" }, "bad");

  const file = path.join(root, "episodes.jsonl");
  assert.equal(exportJsonl(store, file), 32);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as EpisodeRecord);
  assert.equal(lines.length, 32);
  assert.deepEqual(lines, store.listEpisodes());
  assert.deepEqual(lines[30]?.messages, messages);
  assert.equal(lines[31]?.status, "failed");
  assert.equal(exportJsonl(store, file, { environment: "other", status: "failed" }), 1);
  store.close();
});
