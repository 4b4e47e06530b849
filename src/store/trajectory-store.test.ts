import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import type { Trajectory } from "../spec/trajectory.js";
import { SCHEMA_VERSION } from "./schema.js";
import { openTrajectoryStore, StoreVersionError, TrajectoryStoreError, trajectoryOf, type EpisodeKey } from "./trajectory-store.js";

const root = mkdtempSync(path.join(os.tmpdir(), "trace-store-"));
after(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
function freshFile(): string {
  return path.join(root, `case-${counter++}`, "store.sqlite");
}

const ENV = "tau2-airline";
function key(taskId: string, trial = 0): EpisodeKey {
  return { environment: ENV, taskId, trial };
}
function trajectory(k: EpisodeKey, reward: number): Trajectory {
  return {
    ...k,
    seed: 7,
    termination: "agent_stop",
    messages: [
      { role: "system", content: "policy" },
      { role: "user", content: `task ${k.taskId}` },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "call-1", type: "function", function: { name: "get_user", arguments: '{"id":"u1"}' } }],
        tokens: { promptTokenIds: [1, 2, 3], completionTokenIds: [4, 5], completionLogprobs: [-0.5, -0.25] },
      },
      { role: "tool", tool_call_id: "call-1", content: "{}" },
      { role: "assistant", content: "done" },
    ],
    reward: { reward, success: reward === 1, breakdown: { DB: reward }, details: { note: "x" } },
  };
}

test("creates a WAL store with a schema version, and accepts a directory", () => {
  const file = freshFile();
  const store = openTrajectoryStore(file);
  store.close();
  const db = new Database(file, { readonly: true });
  assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
  assert.deepEqual(db.prepare("SELECT version FROM schema_version ORDER BY version").all(), Array.from({ length: SCHEMA_VERSION }, (_, index) => ({ version: index + 1 })));
  db.close();
  const again = openTrajectoryStore(path.dirname(file));
  assert.equal(again.file, file);
  again.close();
});

test("a store of a newer schema version is refused with a typed error naming the file", () => {
  const file = freshFile();
  openTrajectoryStore(file).close();
  const db = new Database(file);
  db.prepare("INSERT INTO schema_version (version, description, applied_at) VALUES (?, 'future', 'now')").run(SCHEMA_VERSION + 1);
  db.close();
  assert.throws(
    () => openTrajectoryStore(file),
    (error: unknown) => {
      assert.ok(error instanceof StoreVersionError);
      assert.ok(TrajectoryStoreError.isInstance(error));
      assert.equal(error.file, file);
      assert.equal(error.found, SCHEMA_VERSION + 1);
      assert.equal(error.supported, SCHEMA_VERSION);
      assert.match(error.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: store schema version ${SCHEMA_VERSION + 1} is newer`));
      return true;
    },
  );
});

test("claim, finish, fail, get and list episodes", () => {
  const store = openTrajectoryStore(freshFile());
  assert.equal(store.addPendingEpisodes([key("0"), key("1"), key("2"), key("3")]), 4);
  assert.equal(store.addPendingEpisodes([key("0")]), 0);
  assert.equal(store.claimEpisode(key("0"), { seed: 7, metadata: { model: "qwen3", temperature: 1 } }), true);
  const running = store.getEpisode(key("0"));
  assert.equal(running?.status, "running");
  assert.equal(running?.attempts, 1);
  assert.ok(running?.startedAt);
  assert.equal(trajectoryOf(running), undefined);

  const t0 = trajectory(key("0"), 1);
  store.finishEpisode(key("0"), t0);
  const finished = store.getEpisode(key("0"));
  assert.ok(finished);
  assert.equal(finished.status, "finished");
  assert.equal(finished.reward, 1);
  assert.equal(finished.success, true);
  assert.equal(finished.startedAt, running.startedAt);
  assert.deepEqual(finished.metadata, { model: "qwen3", temperature: 1 }, "claim metadata kept");
  assert.deepEqual(finished.messages, t0.messages, "messages and tokens come back");
  assert.deepEqual(trajectoryOf(finished), t0);
  assert.equal(store.claimEpisode(key("0")), false, "finished episodes are not claimed again");

  store.claimEpisode(key("1"));
  store.failEpisode(key("1"), new Error("model server down"));
  const failed = store.getEpisode(key("1"));
  assert.equal(failed?.status, "failed");
  assert.match(failed?.error ?? "", /model server down/);
  assert.throws(() => store.failEpisode(key("0"), "late"), /already finished/);

  store.finishEpisode(key("2"), trajectory(key("2"), 0), { metadata: { model: "m" } });
  assert.throws(() => store.finishEpisode(key("3"), trajectory(key("2"), 0)), TrajectoryStoreError);
  assert.throws(() => store.claimEpisode({ environment: ENV, taskId: "x", trial: -1 }), /non-negative integer/);

  assert.deepEqual(store.listEpisodes({ status: "finished" }).map((e) => e.taskId), ["0", "2"]);
  assert.deepEqual(store.listEpisodes({ environment: ENV }).map((e) => [e.taskId, e.status]), [["0", "finished"], ["1", "failed"], ["2", "finished"], ["3", "pending"]]);
  assert.deepEqual(store.listEpisodes({ environment: "other" }), []);
  assert.equal(store.getEpisode(key("nope")), undefined);

  assert.deepEqual(store.summary(), { total: 4, pending: 1, running: 0, failed: 1, finished: 2, graded: 2, passed: 1, passRate: 0.5, meanReward: 0.5 });
  assert.deepEqual(store.summary({ environment: "other" }), { total: 0, pending: 0, running: 0, failed: 0, finished: 0, graded: 0, passed: 0, passRate: null, meanReward: null });
  store.close();
});

test("resume: a restarted runner skips finished episodes and redoes running and failed ones", () => {
  const file = freshFile();
  const plan = ["0", "1", "2", "3", "4"].map((id) => key(id));
  const first = openTrajectoryStore(file);
  first.addPendingEpisodes(plan);
  for (const k of plan.slice(0, 2)) {
    assert.equal(first.claimEpisode(k), true);
    first.finishEpisode(k, trajectory(k, 1));
  }
  first.claimEpisode(plan[2]!);
  first.failEpisode(plan[2]!, "boom");
  first.claimEpisode(plan[3]!); // interrupted while running
  first.close();

  const second = openTrajectoryStore(file);
  const ran: string[] = [];
  for (const k of plan) {
    if (!second.claimEpisode(k)) continue;
    ran.push(k.taskId);
    second.finishEpisode(k, trajectory(k, 0));
  }
  assert.deepEqual(ran, ["2", "3", "4"]);
  assert.deepEqual(plan.map((k) => second.getEpisode(k)?.attempts), [1, 1, 2, 2, 1]);
  assert.equal(second.getEpisode(plan[2]!)?.error, null, "a redone episode loses its old error");
  assert.equal(second.summary().finished, 5);
  assert.equal(second.summary().passed, 2);
  second.close();
});

test("labels and metrics upsert", () => {
  const store = openTrajectoryStore(freshFile());
  store.upsertLabel({ ...key("0"), capability: "policy-lookup", run: "r1", label: "LACKING" });
  store.upsertLabels([
    { ...key("0"), capability: "policy-lookup", run: "r1", label: "PRESENT" },
    { ...key("1"), capability: "policy-lookup", run: "r1", label: "NA" },
    { ...key("0"), capability: "arithmetic", run: "r1", label: "LACKING" },
  ]);
  assert.deepEqual(store.listLabels({ capability: "policy-lookup" }).map((l) => [l.taskId, l.label]), [["0", "PRESENT"], ["1", "NA"]]);
  assert.equal(store.listLabels().length, 3);
  assert.throws(() => store.upsertLabel({ ...key("0"), capability: "c", run: "r", label: "MAYBE" as "NA" }), /not one of/);

  store.recordMetric("train", 1, "loss", 0.9);
  store.recordMetrics("train", 2, { loss: 0.5, reward: 0.25 });
  store.recordMetric("train", 1, "loss", 0.8);
  assert.deepEqual(store.listMetrics({ name: "loss" }).map((m) => [m.step, m.value]), [[1, 0.8], [2, 0.5]]);
  assert.equal(store.listMetrics({ scope: "train" }).length, 3);
  assert.throws(() => store.recordMetric("train", 1.5, "loss", 1), /not an integer/);
  assert.throws(() => store.recordMetric("train", 3, "loss", NaN), /not finite/);
  store.close();
});

test("a transaction is all or nothing", () => {
  const store = openTrajectoryStore(freshFile());
  assert.throws(() =>
    store.transaction(() => {
      store.finishEpisode(key("0"), trajectory(key("0"), 1));
      throw new Error("abort");
    }),
  );
  assert.equal(store.getEpisode(key("0")), undefined);
  store.close();
});

test("finished episodes survive close without an explicit checkpoint and reopen", () => {
  const file = freshFile();
  const store = openTrajectoryStore(file);
  for (const id of ["0", "1", "2"]) store.finishEpisode(key(id), trajectory(key(id), id === "1" ? 1 : 0));
  store.close();
  const reopened = openTrajectoryStore(file);
  assert.deepEqual(reopened.listEpisodes({ status: "finished" }).map((e) => e.taskId), ["0", "1", "2"]);
  assert.deepEqual(reopened.getEpisode(key("1"))?.messages, trajectory(key("1"), 1).messages);
  reopened.close();
});

/** Runs a child node process that writes episodes and then dies the given way, mid-transaction for SIGKILL. */
function runChild(file: string, death: "exit" | "kill"): { status: number | null; signal: NodeJS.Signals | null; stderr: string } {
  const moduleUrl = new URL("./trajectory-store.js", import.meta.url).href;
  const code = `
    const { openTrajectoryStore } = await import(${JSON.stringify(moduleUrl)});
    const store = openTrajectoryStore(${JSON.stringify(file)});
    const messages = [{ role: "user", content: "hi" }, { role: "assistant", content: "bye", tokens: { promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [-1] } }];
    for (const taskId of ["0", "1", "2"]) {
      const key = { environment: "env", taskId, trial: 0 };
      store.claimEpisode(key);
      store.finishEpisode(key, { ...key, messages, termination: "agent_stop", reward: { reward: 1, success: true, breakdown: {} } });
    }
    store.claimEpisode({ environment: "env", taskId: "3", trial: 0 });
    if (${JSON.stringify(death)} === "exit") process.exit(1);
    store.transaction(() => {
      const key = { environment: "env", taskId: "4", trial: 0 };
      store.finishEpisode(key, { ...key, messages, termination: "agent_stop" });
      process.kill(process.pid, "SIGKILL");
    });
  `;
  const result = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
  return { status: result.status, signal: result.signal, stderr: result.stderr };
}

for (const death of ["exit", "kill"] as const) {
  test(`a process that dies (${death === "exit" ? "process.exit(1)" : "SIGKILL mid-transaction"}) leaves a readable store with its finished episodes`, () => {
    const file = freshFile();
    const child = runChild(file, death);
    if (death === "exit") assert.equal(child.status, 1, child.stderr);
    else assert.equal(child.signal, "SIGKILL", child.stderr);
    assert.ok(existsSync(`${file}-wal`), "the WAL was not checkpointed away");
    const store = openTrajectoryStore(file);
    assert.deepEqual(store.listEpisodes({ status: "finished" }).map((e) => e.taskId), ["0", "1", "2"]);
    assert.equal(store.getEpisode({ environment: "env", taskId: "3", trial: 0 })?.status, "running");
    assert.equal(store.getEpisode({ environment: "env", taskId: "4", trial: 0 }), undefined, "the uncommitted transaction is gone");
    assert.deepEqual(store.getEpisode({ environment: "env", taskId: "1", trial: 0 })?.messages?.[1], {
      role: "assistant",
      content: "bye",
      tokens: { promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [-1] },
    });
    assert.equal(store.claimEpisode({ environment: "env", taskId: "3", trial: 0 }), true, "the interrupted episode is redone");
    store.close();
  });
}

test("pageEpisodes lists summaries (token counts from the runner's usage, an error's first line) with filters, a page and facets", () => {
  const store = openTrajectoryStore(freshFile());
  for (const [index, reward] of [1, 0, 1, 0.5].entries()) {
    store.finishEpisode(key(`task-${index}`), { ...trajectory(key(`task-${index}`), reward), termination: index === 3 ? "max_steps" : "agent_stop" }, { metadata: { policyUsage: { promptTokens: 10 * index, completionTokens: index } } });
  }
  store.claimEpisode({ environment: "other", taskId: "x", trial: 0 });
  store.failEpisode({ environment: "other", taskId: "x", trial: 0 }, "refused\nat line 2");
  const all = store.pageEpisodes();
  assert.equal(all.total, 5);
  assert.deepEqual(all.environments, ["other", ENV]);
  assert.deepEqual(all.terminations, ["agent_stop", "max_steps"]);
  assert.deepEqual(all.episodes[2], { ...key("task-2"), status: "finished", seed: 7, termination: "agent_stop", reward: 1, success: true, promptTokens: 20, completionTokens: 2, error: null, finishedAt: all.episodes[2]!.finishedAt });
  assert.deepEqual(all.episodes[4]!.error, "refused");
  assert.deepEqual(store.pageEpisodes({ success: true }).episodes.map((episode) => episode.taskId), ["task-0", "task-2"]);
  assert.deepEqual(store.pageEpisodes({ termination: "max_steps" }).episodes.map((episode) => episode.taskId), ["task-3"]);
  assert.deepEqual(store.pageEpisodes({ task: "sk-1" }).episodes.map((episode) => episode.taskId), ["task-1"]);
  const page = store.pageEpisodes({ environment: ENV, offset: 1, limit: 2 });
  assert.deepEqual([page.total, page.episodes.map((episode) => episode.taskId)], [4, ["task-1", "task-2"]]);
  store.close();
});
