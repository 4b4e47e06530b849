/**
 * A real Python worker (tiny CPU checkpoint) dies with the Node process that started it: killed by SIGKILL (nothing runs
 * in Node; the worker sees its stdin close and its starter gone), by SIGTERM (Node stops it, then dies of the signal), and
 * `trace worker serve` killed by SIGKILL.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { createTinyCheckpoint } from "./tiny-checkpoint.js";
import { isAlive } from "../testing/process-alive.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(here, "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-orphan-"));
const checkpoint = path.join(scratch, "tiny-checkpoint");
const starter = path.join(scratch, "starter.mjs");
/**
 * How long a worker may outlive its starter: it sees the end of file on its stdin at once and then shuts down (about
 * 1 s, 3 to 5 s on two busy cores), or exits regardless 10 s after (parent_watch.py's grace period). Without the watch
 * it would run on for good.
 */
const GONE_WITHIN_MS = 15_000;

/** Starts a worker, prints `worker PID PORT` and waits to be killed. */
const starterScript = `import { startWorker } from ${JSON.stringify(path.join(here, "worker-process.js"))};
const worker = await startWorker({ model: process.argv[2], extraArguments: ["--device", "cpu"] });
process.stdout.write("worker " + worker.pid + " " + worker.port + "\\n");
setInterval(() => undefined, 60_000);
`;

before(async () => {
  writeFileSync(starter, starterScript);
  await createTinyCheckpoint(checkpoint, { layers: 1, vocabSize: 300, seed: 3 });
});

const started: ChildProcess[] = [];
const workers: number[] = [];

after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const pid of workers) if (isAlive(pid)) process.kill(pid, "SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs a command and resolves with the first stdout line that `pattern` matches (its groups), rejecting if it exits first. */
function startAndRead(command: string, argumentList: string[], pattern: RegExp): Promise<{ child: ChildProcess; match: RegExpMatchArray; exited: Promise<NodeJS.Signals | number | null> }> {
  const child = spawn(command, argumentList, { stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code)));
  let output = "";
  let errors = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (errors = (errors + text).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      output += text;
      const match = pattern.exec(output);
      if (match) resolve({ child, match, exited });
    });
    void exited.then((how) => reject(new Error(`${command} ${argumentList.join(" ")} ended (${how}) before printing ${pattern}:\n${output}\n${errors}`)));
  });
}

async function waitGone(pid: number): Promise<number> {
  const startedAt = Date.now();
  while (isAlive(pid) && Date.now() - startedAt < GONE_WITHIN_MS) await sleep(50);
  assert.equal(isAlive(pid), false, `worker ${pid} outlived its starter by ${GONE_WITHIN_MS} ms`);
  return Date.now() - startedAt;
}

function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

describe("a worker dies with the process that started it", { concurrency: 3 }, () => {
  test("the starter killed by SIGKILL", async (t) => {
    const { child, match, exited } = await startAndRead(process.execPath, [starter, checkpoint], /worker (\d+) (\d+)\n/);
    const pid = Number(match[1]);
    workers.push(pid);
    assert.ok(isAlive(pid));
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    t.diagnostic(`the worker was gone ${await waitGone(pid)} ms after its starter`);
    assert.equal(await portIsClosed(Number(match[2])), true);
  });

  test("the starter killed by SIGTERM: it stops the worker and dies of the signal", async (t) => {
    const { child, match, exited } = await startAndRead(process.execPath, [starter, checkpoint], /worker (\d+) (\d+)\n/);
    const pid = Number(match[1]);
    workers.push(pid);
    child.kill("SIGTERM");
    assert.equal(await exited, "SIGTERM");
    t.diagnostic(`the worker was gone ${await waitGone(pid)} ms after its starter`);
    assert.equal(await portIsClosed(Number(match[2])), true);
  });

  test("`trace worker serve` killed by SIGKILL", async (t) => {
    const { child, match, exited } = await startAndRead(
      process.execPath,
      [bin, "worker", "serve", "--model", checkpoint, "--port", "0"],
      /worker ready at http:\/\/127\.0\.0\.1:(\d+)\/v1 .*pid (\d+)\)/,
    );
    const pid = Number(match[2]);
    workers.push(pid);
    child.kill("SIGKILL");
    assert.equal(await exited, "SIGKILL");
    t.diagnostic(`the worker was gone ${await waitGone(pid)} ms after its starter`);
    assert.equal(await portIsClosed(Number(match[1])), true);
  });
});
