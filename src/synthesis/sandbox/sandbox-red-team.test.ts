import assert from "node:assert/strict";
import { after, test } from "node:test";
import type { SandboxFailureKind } from "./sandbox-error.js";
import { SandboxError } from "./sandbox-error.js";
import { loadSandboxedModule } from "./sandboxed-module-runner.js";
import type { SandboxedModuleRunner } from "./sandboxed-module-runner.js";
import type { ModuleHooks } from "./sandbox-test-modules.js";
import { minimalModuleSource } from "./sandbox-test-modules.js";

const limits = { callMilliseconds: 250, memoryBytes: 32 * 1024 * 1024 };
const runners: SandboxedModuleRunner[] = [];
after(async () => {
  await Promise.all(runners.map((runner) => runner.dispose()));
});

async function load(hooks: ModuleHooks = {}, source = minimalModuleSource(hooks)): Promise<SandboxedModuleRunner> {
  const runner = await loadSandboxedModule({ source, limits, hardStopGraceMilliseconds: 500 });
  runners.push(runner);
  return runner;
}

async function expectFailure(promise: Promise<unknown>, kind: SandboxFailureKind, pattern?: RegExp): Promise<SandboxError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(SandboxError.isInstance(error), `expected a SandboxError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    if (pattern !== undefined) assert.match(error.message, pattern);
    return error;
  }
  assert.fail(`expected a ${kind} failure`);
}

async function stillWorks(clean: SandboxedModuleRunner): Promise<void> {
  const instance = await clean.generate(7);
  const outcome = await clean.runTool(instance.state, "cancel_reservation", { reservation_id: instance.facts.id as string });
  const verdict = await clean.verify({ instance, calls: [], replies: [], finalState: outcome.state });
  assert.equal(verdict.success, true);
}

test("a well-behaved module runs in the sandbox: deterministic per seed, tools and verifier work", async () => {
  const runner = await load();
  assert.equal(runner.capability, "minimal_task");
  assert.deepEqual(runner.readTools, ["get_reservation_details"]);
  assert.deepEqual(await runner.generate(3), await runner.generate(3));
  await stillWorks(runner);
});

test("reading a file: imports and require are refused before anything runs; fs/process are not there at run time", async () => {
  await expectFailure(load({ topLevel: `import { readFileSync } from "node:fs"; readFileSync("/etc/passwd");` }), "import", /"node:fs"/);
  await expectFailure(load({ topLevel: `const fs = require("fs");` }), "import", /require/);
  await expectFailure(load({ topLevel: `void import("fs");` }), "import", /dynamic import/);
  const sneaky = await load({ generate: `const get = eval("req" + "uire"); get("fs").readFileSync("/etc/passwd");` });
  await expectFailure(sneaky.generate(1), "throw", /ReferenceError: .?require.? is not defined/);
  const processReader = await load({ generate: `(globalThis as any).process.env.HOME;` });
  await expectFailure(processReader.generate(1), "throw", /TypeError/);
});

test("opening a socket or spawning a process: no fetch, WebSocket, net or child_process exists", async () => {
  const socket = await load({ generate: `void (globalThis as any).fetch("http://example.com");` });
  await expectFailure(socket.generate(1), "throw", /not a function|not defined/);
  const webSocket = await load({ runTool: `new (globalThis as any).WebSocket("ws://localhost:1");` });
  await expectFailure(webSocket.runTool({}, "x", {}), "throw", /not a (constructor|function)|not defined/);
  const spawn = await load({ verify: `(globalThis as any).std.popen("ls"); (globalThis as any).os.exec(["ls"]);` });
  await expectFailure(spawn.verify({ instance: await spawn.generate(1), calls: [], replies: [], finalState: {} }), "throw", /TypeError/);
  const timers = await load({ generate: `setTimeout(() => undefined, 1);` });
  await expectFailure(timers.generate(1), "throw", /setTimeout.? is not defined/);
});

test("looping forever: interrupted at the CPU-time limit, at load or in a call; the module then works again", async () => {
  await expectFailure(load({ topLevel: `while (true) {}` }), "timeout", /CPU-time limit/);
  const looping = await load({ runTool: `if (name === "spin") { for (;;) { try { while (true) {} } catch { /* cannot catch the interrupt */ } } }` });
  const instance = await looping.generate(1);
  await expectFailure(looping.runTool(instance.state, "spin", {}), "timeout");
  const outcome = await looping.runTool(instance.state, "cancel_reservation", { reservation_id: instance.facts.id as string });
  assert.equal(outcome.error, false);
});

test("allocating gigabytes: stopped at the memory limit (or the hard stop), the host keeps running", async () => {
  const hog = await load({ generate: `const hoard: number[][] = []; while (seed === 1) hoard.push(new Array(1e6).fill(seed));` });
  const error = await hog.generate(1).then(
    () => assert.fail("expected a failure"),
    (failure: unknown) => failure,
  );
  assert.ok(SandboxError.isInstance(error) && ["memory", "timeout"].includes(error.kind), String(error));
  const typed = await load({ generate: `new Uint8Array(2 ** 31);` });
  await expectFailure(typed.generate(1), "memory");
  const recursion = await load({ generate: `const deep = (n: number): number => deep(n + 1) + 1; deep(0);` });
  await expectFailure(recursion.generate(1), "memory", /stack/);
  await stillWorks(hog);
});

test("mutating shared prototypes: contained in the module's own QuickJS instance, never in the host or the next module", async () => {
  const polluter = await load({
    topLevel: `(Object.prototype as any).polluted = "yes"; (Array.prototype as any).push = () => 0; JSON.stringify = () => "{}";`,
    generate: `(Object.prototype as any).alsoPolluted = "yes";`,
  });
  const instance = await polluter.generate(1);
  assert.equal((instance.facts as { polluted?: unknown }).polluted, undefined, "inherited keys are not own JSON keys");
  assert.equal(({} as { polluted?: unknown }).polluted, undefined);
  assert.equal(({} as { alsoPolluted?: unknown }).alsoPolluted, undefined);
  const observer = await load({ instance: `{ state: {}, request: "x", followUps: [], solution: [], mustSay: [], facts: { seen: typeof ({} as any).polluted + typeof ({} as any).alsoPolluted } }` });
  assert.deepEqual((await observer.generate(1)).facts, { seen: "undefinedundefined" });
});

test("nondeterminism: Math.random, Date.now, Date() and new Date() throw a clear report; new Date(value) still works", async () => {
  for (const [code, what] of [["Math.random();", "Math.random"], ["Date.now();", "Date.now"], ["new Date();", "new Date"], ["Date();", "Date()"]] as const) {
    const runner = await load({ generate: code });
    await expectFailure(runner.generate(1), "nondeterminism", new RegExp(`${what.replace(/[.()]/g, "\\$&")}.*sdk\\.random`));
  }
  const parsing = await load({ instance: `{ state: {}, request: "x", followUps: [], solution: [], mustSay: [], facts: { year: new Date(sdk.now).getUTCFullYear(), fromProto: typeof (new Date(0).constructor as any).now } }` });
  const facts = (await parsing.generate(1)).facts;
  assert.equal(facts.year, 2024);
  await expectFailure(load({ topLevel: `(new Date(0).constructor as any).now();` }), "nondeterminism");
});

test("malformed results: missing instance fields, non-JSON values, bad verdicts and a missing export are reported", async () => {
  const noSolution = await load({ instance: `{ state: {}, request: "x", followUps: [], mustSay: [], facts: {} } as unknown as ModuleInstance` });
  await expectFailure(noSolution.generate(1), "shape", /solution/);
  const withFunction = await load({ instance: `{ state: { f: () => 1 }, request: "x", followUps: [], solution: [], mustSay: [], facts: {} } as unknown as ModuleInstance` });
  await expectFailure(withFunction.generate(1), "non-json", /function at key "f"/);
  const withNaN = await load({ verify: `return { reward: NaN, success: false, breakdown: {} };` });
  await expectFailure(withNaN.verify({ instance: await withNaN.generate(1), calls: [], replies: [], finalState: {} }), "non-json", /NaN/);
  const cyclic = await load({ generate: `const loop: any = {}; loop.self = loop; return loop;` });
  await expectFailure(cyclic.generate(1), "non-json");
  const overReward = await load({ verify: `return { reward: 2, success: true, breakdown: {} };` });
  await expectFailure(overReward.verify({ instance: await overReward.generate(1), calls: [], replies: [], finalState: {} }), "shape", /reward/);
  await expectFailure(load({}, `export const notDefault = 1;`), "shape", /default export/);
  await expectFailure(load({}, `export default { capability: "x", tools: [] };`), "shape", /description|generate/);
  await expectFailure(load({}, `export default {{{ ;`), "syntax", /module\.ts:1/);
  await expectFailure(load({ topLevel: `throw new Error("boom at load");` }), "throw", /boom at load/);
});
