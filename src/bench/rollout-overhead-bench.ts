/**
 * Benchmark: the rollout runner's own cost per agent step, with an in-process zero-latency model.
 *
 * The policy is a real `createChatClient` whose `fetch` answers at once with a canned OpenAI body (no network): per
 * episode 4 tool-call turns (get_user_details / get_reservation_details with ids that exist in the τ² airline
 * database), then a text answer. The scripted user says one line, then stops. Each episode is 11 steps as τ² counts
 * them (user, 4 × (agent + environment), agent text, user stop).
 *
 * Measured side by side in one run, per episode, as episode wall time ÷ steps (median and p90 across episodes):
 *   (a) `runRollouts` into a temporary store.sqlite: claim → runEpisode (environment, grading) → store write → progress;
 *   (b) the same episodes through `runEpisode` alone (no store, no runner bookkeeping);
 *   (c) the in-process client alone: the same policy requests through `client.complete`, nothing else;
 *   (d) grading alone (`environment.grade`, timed inside (b)).
 * Grading runs inside every episode (runEpisode grades at its end), so (a) and (b) include it; (d) shows its share.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import { runEpisode } from "../rollout/agent-loop.js";
import { runRollouts } from "../rollout/rollout-runner.js";
import { createScriptedUser } from "../rollout/scripted-user.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";

/** Tool-call turns per episode before the text answer. */
export const TOOL_TURNS = 4;
const TASK_TAG = /\[bench-task=([^\]]+)\]/;

interface CannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Per task: a user id from the task (else the first user) and that user's reservations, from db.json. */
function cannedCalls(tasks: readonly Task[], databaseFile: string): Map<string, CannedCall[]> {
  const db = JSON.parse(fs.readFileSync(databaseFile, "utf8")) as { users: Record<string, { reservations?: string[] }> };
  const userIds = Object.keys(db.users);
  const byTask = new Map<string, CannedCall[]>();
  for (const task of tasks) {
    const text = JSON.stringify(task.raw);
    const found = [...text.matchAll(/[a-z]+_[a-z]+_\d{4}/g)].map((match) => match[0]).find((id) => Object.hasOwn(db.users, id));
    const userId = found ?? userIds[0]!;
    const reservations = db.users[userId]?.reservations ?? [];
    const calls: CannedCall[] = [];
    for (let turn = 0; turn < TOOL_TURNS; turn++) {
      const reservation = reservations[Math.floor(turn / 2) % Math.max(1, reservations.length)];
      if (turn % 2 === 1 && reservation !== undefined) calls.push({ name: "get_reservation_details", arguments: { reservation_id: reservation } });
      else calls.push({ name: "get_user_details", arguments: { user_id: userId } });
    }
    byTask.set(task.id, calls);
  }
  return byTask;
}

/** Pre-serialised OpenAI bodies: per task, turn 0..TOOL_TURNS-1 a tool call, turn TOOL_TURNS the text answer. */
function cannedBodies(calls: Map<string, CannedCall[]>): Map<string, string[]> {
  const body = (message: Record<string, unknown>, finish: string) =>
    JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion",
      created: 0,
      model: "bench-model",
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
      usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
    });
  const bodies = new Map<string, string[]>();
  for (const [taskId, list] of calls) {
    const turns = list.map((call, turn) =>
      body({ content: null, tool_calls: [{ id: `call_${turn}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }] }, "tool_calls"),
    );
    turns.push(body({ content: "Thanks, I have looked up your user and reservation details." }, "stop"));
    bodies.set(taskId, turns);
  }
  return bodies;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** A `fetch` that answers every request at once from `bodies`: the turn is the number of tool results so far. */
function cannedFetch(bodies: Map<string, string[]>): typeof fetch {
  const headers = { "content-type": "application/json" };
  return (_input, init) => {
    const text = typeof init?.body === "string" ? init.body : "";
    const taskId = TASK_TAG.exec(text)?.[1] ?? "";
    const turns = bodies.get(taskId);
    if (turns === undefined) return Promise.resolve(new Response(`no canned body for task ${taskId}`, { status: 400 }));
    const turn = Math.min(countOccurrences(text, '"tool_call_id"'), turns.length - 1);
    return Promise.resolve(new Response(turns[turn], { status: 200, headers }));
  };
}

const userLine = (task: Task) => `Hi, I need help with my booking. [bench-task=${task.id}]`;

interface Planned {
  key: string;
  task: Task;
  trial: number;
}

async function pool<T>(items: readonly T[], concurrency: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, () => worker()));
}

export interface Stat {
  median: number;
  p90: number;
}

function stat(values: readonly number[]): Stat {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, p90: at(0.9) };
}

export interface ConcurrencyResult {
  concurrency: number;
  episodes: number;
  stepsPerEpisode: number;
  toolErrors: number;
  /** ms per step, per episode. */
  runner: Stat;
  episodeOnly: Stat;
  client: Stat;
  grading: Stat;
  /** Per episode (a) − (c): everything but the model call. */
  overhead: Stat;
  /** Per episode (a) − (b): store writes + runner bookkeeping. */
  storeAndBookkeeping: Stat;
  /** Whole (a) run wall time ÷ all steps (throughput view). */
  runnerWallPerStep: number;
}

export interface OverheadBenchOptions {
  dataDir: string;
  trials: number;
  concurrencies: readonly number[];
}

export interface OverheadBenchResult {
  tasks: number;
  results: ConcurrencyResult[];
}

function tempStore(): { file: string; cleanup: () => void } {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "rollout-overhead-"));
  return { file: path.join(directory, "store.sqlite"), cleanup: () => fs.rmSync(directory, { recursive: true, force: true }) };
}

/** Runs the four measurements at one concurrency over tasks × trials episodes. */
async function measure(environment: Environment, tasks: readonly Task[], trials: number, concurrency: number, client: ChatClient): Promise<ConcurrencyResult> {
  const planned: Planned[] = [];
  for (const task of tasks) for (let trial = 0; trial < trials; trial++) planned.push({ key: `${task.id}\u0000${trial}`, task, trial });

  // (a) the full runner into a fresh store.
  const { file, cleanup } = tempStore();
  const runnerMs = new Map<string, number>();
  const runnerSteps = new Map<string, number>();
  let toolErrors = 0;
  let runnerWallMs = 0;
  try {
    const store = openTrajectoryStore(file);
    try {
      const starts = new Map<string, number>();
      const claim = store.claimEpisode.bind(store);
      store.claimEpisode = (key, claimOptions) => {
        starts.set(`${key.taskId}\u0000${key.trial}`, performance.now());
        return claim(key, claimOptions);
      };
      const started = performance.now();
      const summary = await runRollouts({
        environment,
        tasks,
        trials,
        concurrency,
        store,
        policy: client,
        makeUser: (task) => createScriptedUser([userLine(task)]),
        metadata: { bench: "rollout-overhead" },
        onProgress: (progress) => {
          const last = progress.last;
          if (last?.status !== "finished") return;
          const key = `${last.key.taskId}\u0000${last.key.trial}`;
          runnerMs.set(key, performance.now() - starts.get(key)!);
        },
      });
      runnerWallMs = performance.now() - started;
      if (summary.finished !== planned.length) throw new Error(`runner finished ${summary.finished} of ${planned.length} episodes (failed ${summary.failed})`);
      for (const record of store.listEpisodes({ environment: environment.name })) {
        runnerSteps.set(`${record.taskId}\u0000${record.trial}`, Number(record.metadata?.steps));
        toolErrors += Number(record.metadata?.errors ?? 0);
      }
    } finally {
      store.close();
    }
  } finally {
    cleanup();
  }

  // (b) runEpisode alone, (d) grading timed inside it; the policy requests are kept for (c).
  const episodeMs = new Map<string, number>();
  const gradingMs = new Map<string, number>();
  const requests = new Map<string, ChatRequest[]>();
  await pool(planned, concurrency, async (episode) => {
    const sent: ChatRequest[] = [];
    let grading = 0;
    const timedEnvironment: Environment = {
      ...environment,
      grade: (task, messages, termination) => {
        const start = performance.now();
        const reward = environment.grade(task, messages, termination);
        grading += performance.now() - start;
        return reward;
      },
    };
    const recording: ChatClient = { complete: (request) => (sent.push(request), client.complete(request)), usage: () => client.usage() };
    const start = performance.now();
    await runEpisode({ environment: timedEnvironment, task: episode.task, policy: recording, user: createScriptedUser([userLine(episode.task)]), trial: episode.trial });
    episodeMs.set(episode.key, performance.now() - start);
    gradingMs.set(episode.key, grading);
    requests.set(episode.key, sent);
  });

  // (c) the client alone: the same requests, in order per episode.
  const clientMs = new Map<string, number>();
  await pool(planned, concurrency, async (episode) => {
    const start = performance.now();
    for (const request of requests.get(episode.key) ?? []) await client.complete(request);
    clientMs.set(episode.key, performance.now() - start);
  });

  const perStep = (times: Map<string, number>) => planned.map((episode) => times.get(episode.key)! / runnerSteps.get(episode.key)!);
  const runner = perStep(runnerMs);
  const episodeOnly = perStep(episodeMs);
  const clientOnly = perStep(clientMs);
  const totalSteps = planned.reduce((sum, episode) => sum + runnerSteps.get(episode.key)!, 0);
  return {
    concurrency,
    episodes: planned.length,
    stepsPerEpisode: totalSteps / planned.length,
    toolErrors,
    runner: stat(runner),
    episodeOnly: stat(episodeOnly),
    client: stat(clientOnly),
    grading: stat(perStep(gradingMs)),
    overhead: stat(runner.map((value, index) => value - clientOnly[index]!)),
    storeAndBookkeeping: stat(runner.map((value, index) => value - episodeOnly[index]!)),
    runnerWallPerStep: runnerWallMs / totalSteps,
  };
}

export async function benchRolloutOverhead(options: OverheadBenchOptions): Promise<OverheadBenchResult> {
  const directory = path.join(options.dataDir, "airline");
  const environment = createTau2Environment(loadTau2Domain("airline", directory));
  const tasks = environment.tasks();
  const bodies = cannedBodies(cannedCalls(tasks, path.join(directory, "db.json")));
  const client = createChatClient({ baseUrl: "http://in-process.invalid/v1", model: "bench-model", fetch: cannedFetch(bodies), maxConcurrency: 64, maxRetries: 0 });
  // Warm-up (JIT, SQLite statements), not reported.
  await measure(environment, tasks, 1, 1, client);
  const results: ConcurrencyResult[] = [];
  for (const concurrency of options.concurrencies) results.push(await measure(environment, tasks, options.trials, concurrency, client));
  return { tasks: tasks.length, results };
}

export const TARGET_MS_PER_STEP = 1;

export function formatOverheadTable(result: OverheadBenchResult): string {
  const header = "conc | episodes | steps/ep | (a) runner+store ms/step | (b) runEpisode, no store | (c) client alone | (d) grading alone | (a)-(b) store+bookkeeping | (a)-(c) runner overhead | run wall ms/step | < 1 ms?";
  const cell = (s: Stat, width: number) => `${s.median.toFixed(3)} / ${s.p90.toFixed(3)}`.padStart(width);
  const lines = result.results.map((row) => {
    const met = row.overhead.median < TARGET_MS_PER_STEP && row.overhead.p90 < TARGET_MS_PER_STEP;
    return [
      String(row.concurrency).padStart(4),
      String(row.episodes).padStart(8),
      row.stepsPerEpisode.toFixed(1).padStart(8),
      cell(row.runner, 24),
      cell(row.episodeOnly, 24),
      cell(row.client, 16),
      cell(row.grading, 17),
      cell(row.storeAndBookkeeping, 25),
      cell(row.overhead, 23),
      row.runnerWallPerStep.toFixed(3).padStart(16),
      met ? "yes" : "NO",
    ].join(" | ");
  });
  return [header, "-".repeat(header.length), ...lines].join("\n");
}
