/**
 * A labeling run killed with SIGKILL resumes: rerunning `trace analyze` reuses the discovered dictionary and asks the
 * analyst only for the (trajectory, run) pairs that had not been labeled when it died.
 */
import assert from "node:assert/strict";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import Database from "better-sqlite3";
import { isDiscoveryRequest, labelingRequest, reply, TOY_CANDIDATES, toyLabels, writeToyStore } from "../testing/analyst-test-support.js";
import type { RunFile } from "../analysis/run-file.js";
import { startFakeChatServer, type FakeChatServer } from "../testing/fake-chat-server.js";

const execute = promisify(execFile);
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-analyze-crash-"));
const TRAJECTORIES = 6;
const RUNS = 2;
let server: FakeChatServer | undefined;
let child: ChildProcess | undefined;
after(async () => {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

function labelRows(file: string): number {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    return (db.prepare("SELECT count(*) AS n FROM labels").get() as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db?.close();
  }
}

test("SIGKILL during labeling, then the same command: discovery reused, only unlabeled pairs requested", { timeout: 60_000 }, async () => {
  const run = path.join(scratch, "run");
  const storeFile = path.join(run, "store.sqlite");
  writeToyStore(storeFile, TRAJECTORIES);
  let delayMs = 150;
  let discoveries = 0;
  let labelings = 0;
  server = await startFakeChatServer(async (request, res) => {
    if (isDiscoveryRequest(request)) {
      discoveries += 1;
      return reply(res, JSON.stringify(TOY_CANDIDATES));
    }
    const labeling = labelingRequest(request);
    assert.ok(labeling);
    labelings += 1;
    await sleep(delayMs);
    if (!res.destroyed) reply(res, JSON.stringify({ labels: toyLabels(labeling.keys) }));
  });
  const args = [bin, "analyze", run, "--analyst-url", server.baseUrl, "--analyst-model", "analyst", "--runs", String(RUNS), "--batch-size", "1", "--concurrency", "1", "--quiet"];

  child = spawn("node", args, { stdio: "ignore" });
  const deadline = Date.now() + 30_000;
  while (labelRows(storeFile) < 2 * 4 && Date.now() < deadline) await sleep(20);
  child.kill("SIGKILL");
  await new Promise((resolve) => child?.once("exit", resolve));
  const labeledPairs = labelRows(storeFile) / TOY_CANDIDATES.candidates.length;
  assert.ok(labeledPairs >= 4 && labeledPairs < TRAJECTORIES * RUNS, `killed midway (${labeledPairs} pairs labeled)`);
  assert.equal(discoveries, 1);
  assert.ok(existsSync(path.join(run, "analysis", "candidate_capabilities.json")), "the dictionary was kept before labeling");

  delayMs = 0;
  labelings = 0;
  const { stdout } = await execute("node", args);
  assert.equal(discoveries, 1, "discovery is not redone");
  assert.equal(labelings, TRAJECTORIES * RUNS - labeledPairs, "only the pairs left unlabeled are requested");
  assert.equal(labelRows(storeFile), TRAJECTORIES * RUNS * TOY_CANDIDATES.candidates.length);
  for (let attempt = 1; attempt <= RUNS; attempt++) {
    const file = JSON.parse(readFileSync(path.join(run, "analysis", `run_0${attempt}.json`), "utf8")) as RunFile;
    assert.deepEqual(file.totals, { total_failed: 3, total_passed: 3 });
    assert.equal(file.failures, undefined);
  }
  assert.match(stdout, /\| state_tracking \| 1\.000 ± 0\.000 \| 1\.000 ± 0\.000 \| 2\/2 \| yes \|/);
});
