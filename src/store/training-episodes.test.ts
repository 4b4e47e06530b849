import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { Trajectory } from "../spec/trajectory.js";
import { TrajectoryStoreError } from "./errors.js";
import type { TrainingEpisodeInput } from "./training-episodes.js";
import { openTrajectoryStore } from "./trajectory-store.js";

const root = mkdtempSync(path.join(os.tmpdir(), "trace-training-episodes-"));
after(() => rmSync(root, { recursive: true, force: true }));

function sampled(iteration: number, group: number, member: number, reward: number): TrainingEpisodeInput {
  const trajectory: Trajectory = {
    environment: "synthetic-lookup",
    taskId: `seed-${group}`,
    trial: member,
    seed: 100 + member,
    termination: "agent_stop",
    messages: [
      { role: "user", content: "find it" },
      { role: "assistant", content: "found", tokens: { promptTokenIds: [1, 2], completionTokenIds: [3], completionLogprobs: [-0.5] } },
    ],
    reward: { reward, success: reward === 1, breakdown: { found: reward } },
  };
  return { adapter: "lookup", capability: "lookup", iteration, group, member, trajectory, kept: group === 0, advantage: group === 0 ? reward - 0.5 : null, metadata: { policyUsage: { promptTokens: 2, completionTokens: 1 } } };
}

test("training episodes are stored apart from the episodes, tagged, with their tokens, and listed by adapter and iteration", () => {
  const store = openTrajectoryStore(path.join(root, "a.sqlite"));
  store.training.record([sampled(1, 0, 0, 1), sampled(1, 0, 1, 0), sampled(1, 1, 0, 0), sampled(1, 1, 1, 0), sampled(2, 0, 0, 1)]);
  assert.equal(store.pageEpisodes().total, 0, "not among the target's episodes");
  const episode = store.training.get({ adapter: "lookup", iteration: 1, group: 0, member: 1 });
  assert.equal(episode?.reward, 0);
  assert.equal(episode?.advantage, -0.5);
  assert.equal(episode?.kept, true);
  assert.equal(episode?.completionTokens, 1);
  assert.deepEqual(episode?.messages?.[1], sampled(1, 0, 1, 0).trajectory.messages[1], "sampled tokens come back on their message");
  assert.deepEqual(episode?.rewardInfo?.breakdown, { found: 0 });
  assert.equal(store.training.list({ iteration: 1 }).length, 4);
  const page = store.training.page({ adapter: "lookup", iteration: 1, offset: 2, limit: 1 });
  assert.deepEqual([page.total, page.episodes.map((row) => [row.group, row.member, row.kept, row.advantage])], [4, [[1, 0, false, null]]]);
  assert.deepEqual(store.training.iterations("lookup").map((row) => [row.iteration, row.episodes, row.keptEpisodes, row.meanReward]), [[1, 4, 2, 0.25], [2, 1, 1, 1]]);
  store.close();
});

test("a resume drops the iterations it redoes, retention drops the oldest, and a bad key is refused", () => {
  const store = openTrajectoryStore(path.join(root, "b.sqlite"));
  store.training.record([1, 2, 3].map((iteration) => sampled(iteration, 0, 0, 1)));
  assert.equal(store.training.deleteAfter("lookup", 2), 1);
  assert.equal(store.training.deleteBefore("lookup", 2), 1);
  assert.deepEqual([...store.training.iterate()].map((row) => row.iteration), [2]);
  assert.throws(() => store.training.record([{ ...sampled(0, 0, 0, 1) }]), (error: unknown) => TrajectoryStoreError.isInstance(error) && /iteration 0 must be a positive integer/.test(error.message));
  store.close();
});
