import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { writeFakePythonInterpreter } from "../testing/fake-python-interpreter.js";
import { isAlive } from "../testing/process-alive.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-worker-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const fakePython = writeFakePythonInterpreter(scratch);

test("trace worker serve starts the worker in the foreground, says where it listens, and stops it on SIGTERM", { timeout: 30_000 }, async () => {
  const record = path.join(scratch, "serve.jsonl");
  const child = spawn(process.execPath, [bin, "worker", "serve", "--model", "/models/tiny", "--port", "0", "--api-key", "k2", "--python", fakePython], {
    env: { ...process.env, TRACE_FAKE_WORKER_RECORD: record },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  try {
    while (!/worker ready at/.test(stdout)) {
      if (child.exitCode !== null) assert.fail(`trace worker serve exited early: ${stderr}`);
      await sleep(50);
    }
    const ready = /worker ready at (http:\/\/127\.0\.0\.1:\d+)\/v1 \(model fake, cpu, float32, world size 1, pid (\d+)\)/.exec(stdout);
    assert.ok(ready, stdout);
    assert.match(stdout, /fake worker ready/); // the worker's own output is echoed
    const health = (await (await fetch(`${ready[1]}/health`)).json()) as { status: string };
    assert.equal(health.status, "ok");
    const [started] = readFileSync(record, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { argv: string[]; env: Record<string, string> });
    assert.deepEqual(started?.argv.slice(0, 5), ["-m", "trace_worker", "serve", "--model", "/models/tiny"]);
    assert.equal(started?.env.TRACE_WORKER_API_KEY, "k2");
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    assert.match(stderr, /SIGTERM: stopping the worker/);
    assert.equal(isAlive(Number(ready[2])), false);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});

test("trace worker serve: a worker that fails to start is one error with its stderr tail and exit code 1", async () => {
  const run = promisify(execFile);
  await assert.rejects(run(process.execPath, [bin, "worker", "serve", "--model", "/missing", "--python", fakePython], { env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "crash" } }), (error: unknown) => {
    const { code, stderr } = error as { code: number; stderr: string };
    assert.equal(code, 1);
    assert.match(stderr, /^trace: the worker \(.* -m trace_worker serve --model \/missing --host 127\.0\.0\.1 --port 8765\) exited before it was ready \(exit code 3\)/m);
    assert.match(stderr, /FileNotFoundError: no config.json/);
    return true;
  });
  await assert.rejects(run(process.execPath, [bin, "worker", "serve", "--model", "/m", "--port", "http"]), /--port must be an integer ≥ 0, got "http"/);
  await assert.rejects(run(process.execPath, [bin, "worker", "serve", "--model", "/m", "--python", path.join(scratch, "no-python")]), /Python interpreter not found: .*no-python \(given as the Python interpreter\)/);
});
