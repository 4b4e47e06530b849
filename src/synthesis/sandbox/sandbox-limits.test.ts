import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createModuleSdk } from "../../envs/modules/module-sdk.js";
import { jsonNestingDepth } from "./json-nesting-depth.js";
import { QuickJsSandbox, defaultSandboxLimits, resolveSandboxLimits } from "./quickjs-sandbox.js";
import { SandboxError } from "./sandbox-error.js";
import { loadSandboxedModule } from "./sandboxed-module-runner.js";
import type { SandboxedModuleRunner } from "./sandboxed-module-runner.js";
import { minimalModuleSource } from "../../testing/sandbox-test-modules.js";
import { threadCpuMilliseconds } from "./thread-cpu-clock.js";
import { transpileModuleSource } from "./transpile-module-source.js";

const mebibyte = 1024 * 1024;
const runners: SandboxedModuleRunner[] = [];
after(async () => {
  await Promise.all(runners.map((runner) => runner.dispose()));
});

async function load(source: string, limits: Parameters<typeof loadSandboxedModule>[0]["limits"] = {}): Promise<SandboxedModuleRunner> {
  const runner = await loadSandboxedModule({ source, limits });
  runners.push(runner);
  return runner;
}

async function failure(promise: Promise<unknown>): Promise<SandboxError> {
  const error = await promise.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value).slice(0, 200)}`),
    (error: unknown) => error,
  );
  assert.ok(SandboxError.isInstance(error), String(error));
  return error;
}

/** A module whose `generate` runs `code` and reports `facts` (the module's globals are `hoard` and `calls`). */
function reportingModule(code: string, facts: string): string {
  return minimalModuleSource({
    topLevel: `const hoard: unknown[] = []; let calls = 0;`,
    generate: `calls++; ${code}`,
    instance: `{ state: {}, request: "x", followUps: [], solution: [], mustSay: [], facts: ${facts} }`,
  });
}

test("a module keeping 320 MiB across calls (40 × 8 MiB in a global) is stopped at the 64 MiB limit; the next call gets a fresh instance", async () => {
  const runner = await load(reportingModule(`hoard.push(new Uint8Array(8 * 1024 * 1024).fill(seed));`, `{ held: hoard.length }`));
  let held = 0;
  let error: unknown;
  for (let seed = 1; seed <= 40 && error === undefined; seed++) {
    try {
      held = (await runner.generate(seed)).facts.held as number;
    } catch (caught) {
      error = caught;
    }
  }
  assert.ok(SandboxError.isInstance(error), `40 × 8 MiB were kept (${held} arrays)`);
  assert.equal(error.kind, "memory", error.message);
  assert.match(error.message, /memory limit.*64 MiB/);
  assert.ok(held >= 4 && held < 8, `held ${held} × 8 MiB before the limit`);
  assert.deepEqual((await runner.generate(1)).facts, { held: 1 }, "a fresh instance: nothing kept from before the failure");
});

test("a memory bomb cannot take the host's memory: the process's RSS stays within the limit plus a margin", async () => {
  const runner = await load(reportingModule(`if (seed === 1) for (;;) hoard.push(new Array(1e5).fill(seed), "x".repeat(1e5) + seed);`, `{}`));
  await runner.generate(2); // the worker and its QuickJS instance are up: measure from here
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const error = await failure(runner.generate(1));
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  assert.equal(error.kind, "memory", error.message);
  // The instance's memory is capped at 64 MiB; without the cap the same bomb grew to the WebAssembly maximum (2 GiB).
  const grown = (peak - before) / mebibyte;
  assert.ok(grown < 64 + 96, `the host's RSS grew by ${grown.toFixed(0)} MiB during the bomb`);
});

test("an endless loop is stopped at its per-call CPU budget by the interrupt handler (not the hard stop); the next call gets a fresh instance", async () => {
  const runner = await load(reportingModule(`if (seed === 1) for (;;) { /* spin */ }`, `{ calls }`), { callMilliseconds: 200 });
  assert.deepEqual((await runner.generate(2)).facts, { calls: 1 });
  assert.deepEqual((await runner.generate(2)).facts, { calls: 2 });
  const started = performance.now();
  const error = await failure(runner.generate(1));
  const elapsed = performance.now() - started;
  assert.equal(error.kind, "timeout", error.message);
  assert.doesNotMatch(error.message, /hard stop/);
  const value = error.value as { cpuMilliseconds: number; wallMilliseconds: number; callMilliseconds: number; threadClock: boolean };
  assert.equal(value.callMilliseconds, 200);
  if (/CPU-time limit/.test(error.message)) {
    assert.match(error.message, /CPU-time limit: \d+ ms .*\(limit 200 ms\) in \d+ ms/);
    assert.ok(value.cpuMilliseconds >= 200 && value.cpuMilliseconds < 400, `${value.cpuMilliseconds} ms of CPU`);
  } else {
    assert.match(error.message, /wall-clock limit: \d+ ms \(limit 800 ms\)/); // an overloaded machine
  }
  if (process.platform === "linux") assert.equal(value.threadClock, true);
  assert.ok(elapsed < 800 + 1000, `stopped after ${elapsed.toFixed(0)} ms, past the wall-clock limit and the hard stop's grace`);
  assert.deepEqual((await runner.generate(2)).facts, { calls: 1 }, "a fresh instance: the counter started over");
});

test("the thread CPU clock counts CPU time, not wall-clock time", { skip: threadCpuMilliseconds() === undefined ? "no per-thread CPU clock here" : false }, () => {
  const cpuBefore = threadCpuMilliseconds() as number;
  const wallBefore = performance.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60); // sleeps: wall-clock time passes, no CPU is used
  const sleptCpu = (threadCpuMilliseconds() as number) - cpuBefore;
  assert.ok(performance.now() - wallBefore >= 55);
  assert.ok(sleptCpu < 30, `${sleptCpu} ms of CPU while sleeping`);
  const busyFrom = threadCpuMilliseconds() as number;
  const busyWallFrom = performance.now();
  let busyCpu = 0;
  while (busyCpu < 20 && performance.now() - busyWallFrom < 5000) busyCpu = (threadCpuMilliseconds() as number) - busyFrom; // spins
  assert.ok(busyCpu >= 20, `${busyCpu} ms of CPU in 5 s of spinning`);
  assert.ok(performance.now() - busyWallFrom >= busyCpu - 1, "no more CPU time than wall-clock time");
});

test("in one thread: after a memory failure the instance refuses every later call (kind crash)", async () => {
  const javascript = transpileModuleSource(reportingModule(`if (seed === 1) for (;;) hoard.push(new Array(1e5).fill(seed));`, `{}`));
  const sandbox = await QuickJsSandbox.create({ javascript, sdkSource: createModuleSdk.toString(), limits: { memoryBytes: 16 * mebibyte } });
  try {
    assert.equal(sandbox.memoryBytes, 16 * mebibyte);
    sandbox.call("generate", JSON.stringify({ seed: 2 }));
    assert.throws(() => sandbox.call("generate", JSON.stringify({ seed: 1 })), (error: unknown) => SandboxError.isInstance(error) && error.kind === "memory" && /16 MiB/.test(error.message));
    assert.throws(() => sandbox.call("generate", JSON.stringify({ seed: 2 })), (error: unknown) => SandboxError.isInstance(error) && error.kind === "crash" && /earlier failure/.test(error.message));
  } finally {
    sandbox.dispose();
  }
});

test("limits: the wall-clock limit follows the CPU budget unless given; impossible limits are refused with the value", () => {
  assert.deepEqual(resolveSandboxLimits(), defaultSandboxLimits);
  assert.equal(resolveSandboxLimits({ callMilliseconds: 250 }).callWallMilliseconds, 1000);
  assert.equal(resolveSandboxLimits({ callMilliseconds: 250, callWallMilliseconds: 300 }).callWallMilliseconds, 300);
  assert.throws(() => resolveSandboxLimits({ memoryBytes: 8 * mebibyte }), /memoryBytes .* got 8388608/);
  assert.throws(() => resolveSandboxLimits({ memoryBytes: 4096 * mebibyte }), /memoryBytes/);
  assert.throws(() => resolveSandboxLimits({ callMilliseconds: 100, callWallMilliseconds: 50 }), /got 100 and 50/);
});

test("jsonNestingDepth reads the nesting off the text, skipping strings, and stops past its limit", () => {
  assert.equal(jsonNestingDepth("1"), 0);
  assert.equal(jsonNestingDepth('[{"a": [1, {"b": {}}]}]'), 5);
  assert.equal(jsonNestingDepth('{"text": "[[[{{{\\"]]]"}'), 1);
  assert.equal(jsonNestingDepth('["\\\\", [[]]]'), 3);
  assert.equal(jsonNestingDepth("[".repeat(1000) + "]".repeat(1000), 64), 65);
});
