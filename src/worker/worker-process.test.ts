import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { writeFakePythonInterpreter } from "../testing/fake-python-interpreter.js";
import { PythonInterpreterNotFoundError } from "./python-interpreter-not-found-error.js";
import { repositoryRoot, resolvePythonInterpreter, workerEnvironment } from "./python-environment.js";
import { liveWorkerCount, startWorker } from "./worker-process.js";
import { WorkerOptionError, WorkerStartError } from "./worker-start-error.js";
import { isAlive } from "../testing/process-alive.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-worker-process-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const fakePython = writeFakePythonInterpreter(scratch);

function recordFile(name: string): string {
  return path.join(scratch, `${name}.jsonl`);
}

function readRecord(file: string): { argv: string[]; cwd: string; env: Record<string, string | undefined>; pid: number }[] {
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { argv: string[]; cwd: string; env: Record<string, string | undefined>; pid: number });
}

test("the repository root is found from the module's own path", () => {
  assert.equal(readFileSync(path.join(repositoryRoot, "package.json"), "utf8").includes('"name": "trace-agent"'), true);
});

test("the interpreter: the option, else TRACE_PYTHON, else .venv/bin/python; a missing one says how to create the venv", () => {
  assert.equal(resolvePythonInterpreter({ python: fakePython, env: {} }), fakePython);
  assert.equal(resolvePythonInterpreter({ env: { TRACE_PYTHON: fakePython } }), fakePython);
  assert.equal(resolvePythonInterpreter({ env: { TRACE_PYTHON: "sh", PATH: "/usr/bin:/bin" } }).endsWith("/sh"), true);
  assert.throws(
    () => resolvePythonInterpreter({ repositoryRoot: scratch, env: {} }),
    (error: unknown) => {
      assert.ok(PythonInterpreterNotFoundError.isInstance(error));
      assert.equal(error.python, path.join(scratch, ".venv", "bin", "python"));
      assert.equal(error.source, "virtual environment");
      assert.match(error.message, /python3 -m venv \.venv && \.venv\/bin\/pip install -r worker\/requirements\.txt/);
      return true;
    },
  );
  assert.throws(() => resolvePythonInterpreter({ env: { TRACE_PYTHON: path.join(scratch, "nope") } }), (error: unknown) => PythonInterpreterNotFoundError.isInstance(error) && error.source === "TRACE_PYTHON");
});

test("the worker environment puts <repo>/worker first on PYTHONPATH and unbuffers output", () => {
  const env = workerEnvironment("/repo", { PYTHONPATH: "/elsewhere", HOME: "/home/x" });
  assert.deepEqual(env, { PYTHONPATH: `/repo/worker${path.delimiter}/elsewhere`, PYTHONUNBUFFERED: "1", HOME: "/home/x" });
  assert.equal(workerEnvironment("/repo", {}).PYTHONPATH, "/repo/worker");
});

test("startWorker runs `python -m trace_worker serve` on a free port, waits for /health, and stops it with SIGTERM", async () => {
  const record = recordFile("serve");
  const output: string[] = [];
  const worker = await startWorker({
    model: "/models/tiny",
    python: fakePython,
    apiKey: "k1",
    servedModelName: "tiny-test",
    env: { ...process.env, TRACE_FAKE_WORKER_RECORD: record, TRACE_WORKER_API_KEY: "inherited" },
    onOutput: (_stream, text) => output.push(text),
  });
  try {
    assert.match(worker.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(worker.baseUrl, `${worker.origin}/v1`);
    assert.equal(worker.apiKey, "k1");
    assert.equal(worker.health.model, "tiny-test");
    assert.deepEqual(await worker.trainerClient().health(), worker.health);
    const [started] = readRecord(record);
    assert.deepEqual(started?.argv, ["-m", "trace_worker", "serve", "--model", "/models/tiny", "--host", "127.0.0.1", "--port", String(worker.port), "--served-model-name", "tiny-test"]);
    assert.equal(started?.cwd, repositoryRoot);
    assert.equal(started?.env.PYTHONPATH?.split(path.delimiter)[0], path.join(repositoryRoot, "worker"));
    assert.equal(started?.env.TRACE_WORKER_API_KEY, "k1");
    assert.equal(started?.pid, worker.pid);
    await sleep(50);
    assert.match(output.join(""), /fake worker ready/);
  } finally {
    const exit = await worker.stop();
    assert.deepEqual(exit, { code: null, signal: "SIGTERM" });
  }
  assert.deepEqual(await worker.stop(), { code: null, signal: "SIGTERM" });
  assert.equal(isAlive(worker.pid), false);
});

test("gpus must be a positive integer; above 1 the worker starts under torchrun through the same interpreter", async () => {
  for (const gpus of [0, 1.5]) {
    await assert.rejects(startWorker({ model: "/models/tiny", python: fakePython, gpus }), (error: unknown) => WorkerOptionError.isInstance(error) && error.option === "gpus" && error.value === gpus);
  }
  const record = recordFile("torchrun");
  const worker = await startWorker({ model: "/models/tiny", python: fakePython, gpus: 4, env: { ...process.env, TRACE_FAKE_WORKER_RECORD: record } });
  await worker.stop();
  assert.deepEqual(readRecord(record)[0]?.argv.slice(0, 8), ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "4", "-m", "trace_worker", "serve"]);
});

test("a worker that exits while starting fails at once with its stderr tail", async () => {
  const started = Date.now();
  await assert.rejects(startWorker({ model: "/models/missing", python: fakePython, env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "crash" } }), (error: unknown) => {
    assert.ok(WorkerStartError.isInstance(error));
    assert.equal(error.reason, "exited");
    assert.equal(error.exitCode, 3);
    assert.match(error.stderrTail, /FileNotFoundError: no config.json/);
    assert.match(error.message, /exited before it was ready \(exit code 3\); its stderr ends:\n.*Loading the model/s);
    return true;
  });
  assert.ok(Date.now() - started < 5_000);
});

test("a worker that never answers /health is stopped after the startup timeout", async () => {
  const record = recordFile("silent");
  await assert.rejects(
    startWorker({ model: "/m", python: fakePython, startupTimeoutMs: 600, env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "silent", TRACE_FAKE_WORKER_RECORD: record } }),
    (error: unknown) => WorkerStartError.isInstance(error) && error.reason === "timeout" && /within 600 ms/.test(error.message),
  );
  const [silent] = readRecord(record);
  await sleep(100);
  assert.equal(isAlive(silent!.pid), false);
});

test("a worker that ignores SIGTERM gets SIGKILL after the grace period", async () => {
  const worker = await startWorker({ model: "/m", python: fakePython, stopGraceMs: 300, env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "stubborn" } });
  const started = Date.now();
  assert.deepEqual(await worker.stop(), { code: null, signal: "SIGKILL" });
  assert.ok(Date.now() - started >= 300);
  assert.match(worker.stderrTail(), /ignoring SIGTERM/);
});

test("a chosen port that another process took is chosen again", async () => {
  const record = recordFile("port-taken");
  const worker = await startWorker({ model: "/m", python: fakePython, env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "port-taken", TRACE_FAKE_WORKER_RECORD: record } });
  await worker.stop();
  assert.equal(readRecord(record).length, 2);
  await assert.rejects(
    startWorker({ model: "/m", port: worker.port, python: fakePython, env: { ...process.env, TRACE_FAKE_WORKER_BEHAVIOUR: "port-taken", TRACE_FAKE_WORKER_RECORD: recordFile("fixed-port") } }),
    (error: unknown) => WorkerStartError.isInstance(error) && /Address already in use/.test(error.stderrTail),
  );
});

test("the worker dies with the process that started it", async () => {
  const module = path.join(here, "worker-process.js");
  const script = `import { startWorker } from ${JSON.stringify(module)};
const worker = await startWorker({ model: "/m", python: ${JSON.stringify(fakePython)} });
process.stdout.write(String(worker.pid));
process.exit(0);`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  const pid = Number(stdout);
  assert.ok(pid > 0);
  for (let waited = 0; isAlive(pid) && waited < 2_000; waited += 50) await sleep(50);
  assert.equal(isAlive(pid), false);
});

test("workers share one set of process listeners, gone with the last worker; a program's own signal listener keeps control", async () => {
  const events = ["exit", "SIGINT", "SIGTERM", "SIGHUP"] as const;
  const counts = (): number[] => events.map((event) => process.listenerCount(event));
  const before = counts();
  const workers = await Promise.all([1, 2, 3].map(() => startWorker({ model: "/m", python: fakePython })));
  try {
    assert.equal(liveWorkerCount(), 3);
    assert.deepEqual(counts(), before.map((count) => count + 1));
    // With a listener of the program's own, SIGTERM is the program's business: the workers are left alone.
    let received = 0;
    const own = (): void => {
      received += 1;
    };
    process.on("SIGTERM", own);
    try {
      process.kill(process.pid, "SIGTERM");
      for (let waited = 0; received === 0 && waited < 2_000; waited += 20) await sleep(20);
      assert.equal(received, 1);
      await sleep(100);
      assert.ok(workers.every((worker) => isAlive(worker.pid)));
    } finally {
      process.removeListener("SIGTERM", own);
    }
  } finally {
    await Promise.all(workers.map((worker) => worker.stop()));
  }
  assert.equal(liveWorkerCount(), 0);
  assert.deepEqual(counts(), before);
});
