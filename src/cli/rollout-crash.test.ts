/**
 * Crash safety: a `trace rollout` killed with SIGKILL mid-run leaves a store that opens, keeps the episodes it had
 * finished intact, and the same command run again completes exactly the missing (task, trial) pairs.
 */
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import Database from "better-sqlite3";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer } from "../testing/fake-chat-server.js";
import { openTrajectoryStore, type EpisodeRecord } from "../store/trajectory-store.js";
import { tau2DomainDirectory } from "../testing/shared-data.js";

const run = promisify(execFile);
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const RESPONSE_DELAY_MS = 150;
// Six real airline task ids (the data set has no tasks 2 or 6).
const TASKS = ["0", "1", "3", "4", "5", "7"];
const TRIALS = 2;

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-rollout-crash-"));
let server: FakeChatServer | undefined;
let child: ChildProcess | undefined;
after(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Finished episodes counted through a read-only connection; 0 while the child has not created the store yet. */
function finishedCount(file: string): number {
  if (!existsSync(file)) return 0;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const row = db.prepare("SELECT count(*) AS n FROM episodes WHERE status = 'finished'").get() as { n: number };
    return row.n;
  } catch {
    return 0; // schema not written yet, or the database is momentarily busy
  } finally {
    db?.close();
  }
}

function readEpisodes(file: string): EpisodeRecord[] {
  const store = openTrajectoryStore(file);
  try {
    return store.listEpisodes({ environment: "tau2-airline" });
  } finally {
    store.close();
  }
}

function keyOf(record: EpisodeRecord): string {
  return `${record.taskId}#${record.trial}`;
}

function assertIntact(record: EpisodeRecord): void {
  const where = `episode ${keyOf(record)}`;
  assert.equal(record.status, "finished", where);
  assert.ok(record.finishedAt !== null, `${where}: finishedAt`);
  assert.ok(record.termination !== null, `${where}: termination`);
  assert.ok(record.messages !== null && record.messages.length > 0, `${where}: messages`);
  assert.equal(typeof record.reward, "number", `${where}: reward`);
}

describe("rollout crash safety", () => {
  test("SIGKILL mid-run keeps finished episodes; rerunning completes every (task, trial) once, skipping the finished", { timeout: 60_000 }, async () => {
    // Policy requests carry tools; the LLM user's do not. The user says hello once, then ###STOP###: one agent message per episode.
    server = await startFakeChatServer(async (request, res) => {
      await sleep(RESPONSE_DELAY_MS);
      if (res.destroyed) return; // the killed child's connection
      const messages = request.body.messages as { role: string }[];
      if (request.body.tools !== undefined) sendJson(res, 200, chatBody({ content: "Sure, I can help with that." }));
      else sendJson(res, 200, chatBody({ content: messages.some((m) => m.role === "assistant") ? "###STOP###" : "Hi, I want to change my flight." }));
    });
    const out = path.join(scratch, "run");
    const file = path.join(out, "store.sqlite");
    const args = [bin, "rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-url", server.baseUrl, "--agent-model", "m", "--tasks", TASKS.join(","), "--trials", String(TRIALS), "--concurrency", "2", "--run-dir", out];

    // 1. Run, and SIGKILL the child once at least two episodes are finished.
    const first = spawn("node", args, { stdio: ["ignore", "ignore", "pipe"] });
    child = first;
    let stderr = "";
    first.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => first.on("exit", (code, signal) => resolve(signal ?? code)));
    let exitedEarly = false;
    void exited.then(() => (exitedEarly = true));
    const deadline = Date.now() + 40_000;
    while (finishedCount(file) < 2) {
      assert.ok(!exitedEarly, `the rollout exited before two episodes finished:\n${stderr}`);
      assert.ok(Date.now() < deadline, `no two finished episodes within 40 s:\n${stderr}`);
      await sleep(25);
    }
    first.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");

    // 2. The store opens; what was finished is whole, and the run was really cut short.
    const beforeRestart = readEpisodes(file);
    const finishedBefore = beforeRestart.filter((r) => r.status === "finished");
    assert.ok(finishedBefore.length >= 2, `finished before the kill: ${finishedBefore.length}`);
    assert.ok(finishedBefore.length < TASKS.length * TRIALS, "the kill came after the run was over; slow the server down");
    for (const record of finishedBefore) assertIntact(record);
    assert.ok(beforeRestart.every((r) => r.status === "finished" || r.status === "running" || r.status === "pending"), "no episode failed");

    // 3. The same command again finishes the rest and exits 0.
    const { stdout } = await run("node", [...args, "--json"], { encoding: "utf8", timeout: 45_000 });
    const summary = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    assert.deepEqual(
      [summary.total, summary.skipped, summary.finished, summary.failed, summary.aborted],
      [TASKS.length * TRIALS, finishedBefore.length, TASKS.length * TRIALS - finishedBefore.length, 0, false],
    );

    // 4. Exactly one finished episode per (task, trial): none lost, none duplicated.
    const episodes = readEpisodes(file);
    const expected = TASKS.flatMap((taskId) => Array.from({ length: TRIALS }, (_, trial) => `${taskId}#${trial}`)).sort();
    assert.deepEqual(episodes.map(keyOf).sort(), expected);
    for (const record of episodes) assertIntact(record);

    // 5. The episodes finished before the kill were skipped, not redone.
    const byKey = new Map(episodes.map((r) => [keyOf(r), r]));
    for (const before of finishedBefore) {
      const now = byKey.get(keyOf(before))!;
      assert.equal(now.finishedAt, before.finishedAt, `episode ${keyOf(before)} was redone`);
      assert.equal(now.attempts, before.attempts, `episode ${keyOf(before)} was claimed again`);
      assert.deepEqual(now.messages, before.messages);
    }
  });
});
