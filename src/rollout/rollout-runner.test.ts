import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { createChatClient } from "../models/chat-client.js";
import { chatBody, type FakeHandler, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { tau2DomainDirectory } from "../testing/shared-data.js";
import { createProgressPrinter, runRollouts, type RolloutProgress } from "./rollout-runner.js";
import { createLlmUserSimulator } from "./llm-user-simulator.js";
import { createScriptedUser } from "./scripted-user.js";

const airline = createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline")));
const tasks = [airline.task("0"), airline.task("1")];
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-rollout-"));
const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
  rmSync(scratch, { recursive: true, force: true });
});

let storeCount = 0;
function freshStore() {
  const store = openTrajectoryStore(path.join(scratch, `store-${storeCount++}.sqlite`));
  closers.push(() => Promise.resolve(store.close()));
  return store;
}

async function policyServer(handler: FakeHandler = (_request, res) => sendJson(res, 200, chatBody({ content: "Happy to help." }))) {
  const server = await startFakeChatServer(handler);
  closers.push(() => server.close());
  return { server, policy: createChatClient({ baseUrl: server.baseUrl, model: "test-model", maxRetries: 0, retryBaseMs: 1 }) };
}

const makeUser = () => createScriptedUser(["Hi, I need help with my reservation."]);

test("2 tasks × 2 trials finish and are stored with per-episode seeds; a rerun skips all 4", async () => {
  const { server, policy } = await policyServer();
  const store = freshStore();
  const events: RolloutProgress[] = [];
  const summary = await runRollouts({ environment: airline, tasks, trials: 2, concurrency: 2, store, policy, makeUser, baseSeed: 100, sampling: { temperature: 0.7 }, onProgress: (p) => events.push(p) });
  assert.equal(summary.total, 4);
  assert.equal(summary.finished, 4);
  assert.equal(summary.skipped, 0);
  assert.equal(summary.failed, 0);
  assert.equal(summary.aborted, false);
  assert.equal(typeof summary.passRate, "number");
  const records = store.listEpisodes({ environment: "tau2-airline", status: "finished" });
  assert.equal(records.length, 4);
  const byKey = new Map(records.map((r) => [`${r.taskId}/${r.trial}`, r]));
  assert.deepEqual([...byKey.keys()].sort(), ["0/0", "0/1", "1/0", "1/1"]);
  assert.equal(byKey.get("0/0")!.seed, 100);
  assert.equal(byKey.get("1/1")!.seed, 103);
  for (const record of records) assert.equal(record.termination, "user_stop");
  const perEpisodeRequests = server.received.length / 4;
  // The fake server reports 10 prompt / 2 completion tokens per request; the runner keeps the server's counts.
  for (const record of records) assert.deepEqual(record.metadata?.policyUsage, { promptTokens: 10 * perEpisodeRequests, completionTokens: 2 * perEpisodeRequests });
  const seeds = server.received.map((r) => r.body.seed as number).sort();
  assert.deepEqual([...new Set(seeds)], [100, 101, 102, 103]);
  assert.equal(server.received[0]!.body.temperature, 0.7);
  assert.equal(events.at(-1)!.done, 4);

  const requests = server.received.length;
  const again = await runRollouts({ environment: airline, tasks, trials: 2, concurrency: 2, store, policy, makeUser, baseSeed: 100 });
  assert.deepEqual([again.total, again.finished, again.skipped, again.failed], [4, 0, 4, 0]);
  assert.equal(again.passRate, summary.passRate);
  assert.equal(server.received.length, requests);
});

test("an abort after the first episode leaves the rest resumable; a second run completes them", async () => {
  const { policy } = await policyServer();
  const store = freshStore();
  const controller = new AbortController();
  const first = await runRollouts({
    environment: airline, tasks, trials: 2, concurrency: 1, store, policy, makeUser, signal: controller.signal,
    onProgress: (p) => { if (p.finished === 1) controller.abort(); },
  });
  assert.equal(first.aborted, true);
  assert.equal(first.finished, 1);
  assert.equal(first.remaining, 3);
  assert.equal(store.summary().finished, 1);
  const second = await runRollouts({ environment: airline, tasks, trials: 2, concurrency: 1, store, policy, makeUser });
  assert.deepEqual([second.finished, second.skipped, second.aborted], [3, 1, false]);
  assert.equal(store.summary().finished, 4);
});

test("an abort with episodes in flight returns at once and leaves them claimable, never half-written", async () => {
  const pending: (() => void)[] = [];
  const { policy } = await policyServer((_request, res) => {
    pending.push(() => sendJson(res, 200, chatBody({ content: "Sure." })));
  });
  const store = freshStore();
  const controller = new AbortController();
  const run = runRollouts({ environment: airline, tasks, trials: 2, concurrency: 2, store, policy, makeUser, signal: controller.signal });
  while (pending.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  const summary = await run;
  assert.deepEqual([summary.finished, summary.failed, summary.remaining, summary.aborted], [0, 0, 4, true]);
  for (const answer of pending) answer();
  await new Promise((resolve) => setTimeout(resolve, 50));
  const s = store.summary();
  assert.deepEqual([s.finished, s.failed, s.running], [0, 0, 2]);
  const resumed = await runRollouts({ environment: airline, tasks, trials: 2, concurrency: 2, store, policy: (await policyServer()).policy, makeUser });
  assert.deepEqual([resumed.finished, resumed.skipped], [4, 0]);
});

test("concurrency is respected", async () => {
  let inFlight = 0;
  let peak = 0;
  const { policy } = await policyServer(async (_request, res) => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    await new Promise((resolve) => setTimeout(resolve, 20));
    inFlight -= 1;
    sendJson(res, 200, chatBody({ content: "One moment." }));
  });
  const summary = await runRollouts({ environment: airline, tasks: [...tasks, airline.task("3")], trials: 2, concurrency: 2, store: freshStore(), policy, makeUser });
  assert.equal(summary.finished, 6);
  assert.equal(peak, 2);
});

test("a policy answering a 400 that is not the endpoint's fault stores agent_error episodes instead of crashing the runner", async () => {
  const { policy } = await policyServer((_request, res) => sendJson(res, 400, { error: { message: "bad request" } }));
  const store = freshStore();
  const summary = await runRollouts({ environment: airline, tasks, trials: 2, concurrency: 2, store, policy, makeUser });
  assert.deepEqual([summary.finished, summary.failed, summary.passRate], [4, 0, 0]);
  for (const record of store.listEpisodes()) {
    assert.equal(record.termination, "agent_error");
    assert.equal(record.success, false);
    assert.match(String(record.metadata?.error), /400/);
  }
});

test("an endpoint failure (context length exceeded) is stored failed with its error, and the next run redoes and finishes it", async () => {
  const { policy: overflowing } = await policyServer((_request, res) =>
    sendJson(res, 400, { error: { message: "This model's maximum context length is 128000 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } }),
  );
  const store = freshStore();
  const events: RolloutProgress[] = [];
  const first = await runRollouts({ environment: airline, tasks, trials: 1, store, policy: overflowing, makeUser, onProgress: (p) => events.push(p) });
  assert.deepEqual([first.finished, first.failed, first.passed, first.passRate], [0, 2, 0, null]);
  for (const record of store.listEpisodes()) {
    assert.equal(record.status, "failed");
    assert.equal(record.termination, null);
    assert.equal(record.reward, null);
    assert.match(record.error ?? "", /^EpisodeEndpointError: the policy's endpoint failed: ChatRequestError: POST .* → 400: .*maximum context length/);
  }
  assert.deepEqual(store.summary().finished, 0);
  assert.match(events.at(-1)?.last?.error ?? "", /^EpisodeEndpointError: the policy's endpoint failed/);

  const { policy } = await policyServer();
  const second = await runRollouts({ environment: airline, tasks, trials: 1, store, policy, makeUser });
  assert.deepEqual([second.finished, second.failed, second.skipped], [2, 0, 0]);
  for (const record of store.listEpisodes()) {
    assert.deepEqual([record.status, record.termination, record.error, record.attempts], ["finished", "user_stop", null, 2]);
  }
});

test("real path: a policy client pointed at a port nothing listens on stores failed episodes, not finished ones; so does a dead LLM user", async () => {
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  const deadUrl = `http://127.0.0.1:${port}/v1`;

  const store = freshStore();
  const dead = createChatClient({ baseUrl: deadUrl, model: "test-model", maxRetries: 0 });
  const summary = await runRollouts({ environment: airline, tasks, trials: 1, store, policy: dead, makeUser });
  assert.deepEqual([summary.finished, summary.failed, summary.passRate], [0, 2, null]);
  const records = store.listEpisodes();
  assert.deepEqual(records.map((record) => record.status), ["failed", "failed"]);
  for (const record of records) assert.match(record.error ?? "", /^EpisodeEndpointError: the policy's endpoint failed: ChatConnectionError: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed after 1 attempt/);
  assert.deepEqual([store.summary().finished, store.summary().failed], [0, 2]);

  const { policy } = await policyServer();
  const userClient = createChatClient({ baseUrl: deadUrl, model: "user-model", maxRetries: 0 });
  const withDeadUser = freshStore();
  const userSummary = await runRollouts({
    environment: airline, tasks, trials: 1, store: withDeadUser, policy,
    makeUser: (task) => createLlmUserSimulator({ client: userClient, guidelines: "Play the customer.", scenario: task.userInstructions }),
  });
  assert.deepEqual([userSummary.finished, userSummary.failed], [0, 2]);
  assert.ok(withDeadUser.listEpisodes().every((record) => record.status === "failed" && /the user simulator's endpoint failed: ChatConnectionError/.test(record.error ?? "")));
});

test("a user factory that throws marks the episode failed; others still run", async () => {
  const { policy } = await policyServer();
  const store = freshStore();
  const summary = await runRollouts({
    environment: airline, tasks, trials: 1, store, policy,
    makeUser: (task) => { if (task.id === "1") throw new Error("no user for task 1"); return makeUser(); },
  });
  assert.deepEqual([summary.finished, summary.failed], [1, 1]);
  assert.match(store.getEpisode({ environment: "tau2-airline", taskId: "1", trial: 0 })!.error ?? "", /no user for task 1/);
});

test("the progress printer prints every N lines when not a TTY", () => {
  const lines: string[] = [];
  const stream = { write: (chunk: string) => { lines.push(chunk); return true; } } as unknown as NodeJS.WritableStream;
  const printer = createProgressPrinter(stream, { every: 2, tty: false });
  const base = { total: 5, finished: 0, failed: 0, skipped: 0, running: 0, passed: 0, passRate: null, elapsedMs: 0, etaMs: null };
  for (let done = 0; done <= 5; done++) printer.update({ ...base, done, finished: done });
  printer.done();
  assert.deepEqual(lines.map((line) => line.split(" ")[0]), ["0/5", "2/5", "4/5", "5/5"]);
  assert.ok(lines.every((line) => line.endsWith("\n")));
});
