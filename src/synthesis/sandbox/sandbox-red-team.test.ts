import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { ModuleInstance } from "../../envs/modules/capability-module.js";
import type { SandboxLimits } from "./quickjs-sandbox.js";
import type { SandboxFailureKind } from "./sandbox-error.js";
import { SandboxError } from "./sandbox-error.js";
import { hostilePayloads, payloadSource } from "../../testing/sandbox-hostile-modules.js";
import type { HostilePayload } from "../../testing/sandbox-hostile-modules.js";
import { loadSandboxedModule } from "./sandboxed-module-runner.js";
import type { SandboxedModuleRunner } from "./sandboxed-module-runner.js";
import type { ModuleHooks } from "../../testing/sandbox-test-modules.js";
import { minimalModuleSource } from "../../testing/sandbox-test-modules.js";

// Small limits keep the suite fast: 150 ms of CPU per call, 32 MiB per module; a generous wall-clock limit keeps it
// steady on a busy machine (a loop is stopped by its CPU time either way).
const limits: Partial<SandboxLimits> = { callMilliseconds: 150, callWallMilliseconds: 2000, memoryBytes: 32 * 1024 * 1024 };
const hardStopGraceMilliseconds = 500;
const runners: SandboxedModuleRunner[] = [];
after(async () => {
  await Promise.all(runners.map((runner) => runner.dispose()));
});

// What the host had before any module ran: a payload must leave all of it alone.
const hostJsonParse = JSON.parse;
const hostJsonStringify = JSON.stringify;
const hostArrayPush = Array.prototype.push;
const hostPrototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join();

function assertHostUnaffected(): void {
  assert.equal(JSON.parse, hostJsonParse);
  assert.equal(JSON.stringify, hostJsonStringify);
  assert.equal(Array.prototype.push, hostArrayPush);
  assert.equal(Object.getOwnPropertyNames(Object.prototype).sort().join(), hostPrototypeKeys);
  for (const key of ["polluted", "alsoPolluted", "toJSON", "then"]) assert.equal((Object.prototype as Record<string, unknown>)[key], undefined, key);
  assert.equal(typeof (globalThis as { leaked?: unknown }).leaked, "undefined");
}

async function load(hooks: ModuleHooks = {}, source = minimalModuleSource(hooks)): Promise<SandboxedModuleRunner> {
  const runner = await loadSandboxedModule({ source, limits, hardStopGraceMilliseconds });
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

test("nondeterminism: new Date(value) still works while the clock is out of reach", async () => {
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
  await expectFailure(load({}, `export const notDefault = 1;`), "shape", /default export/);
  await expectFailure(load({}, `export default { capability: "x", tools: [] };`), "shape", /description|generate/);
  await expectFailure(load({}, `export default {{{ ;`), "syntax", /module\.ts:1/);
  await expectFailure(load({ topLevel: `throw new Error("boom at load");` }), "throw", /boom at load/);
});

/** Runs a payload's module and reports whether it was contained (throws, failing its test, when it was not). */
async function attack(payload: HostilePayload): Promise<void> {
  let runner: SandboxedModuleRunner | undefined;
  let outcome: { result: unknown } | { error: unknown };
  try {
    runner = await loadSandboxedModule({ source: payloadSource(payload), limits: { ...limits, ...payload.limits }, hardStopGraceMilliseconds });
    let result: unknown = runner.capability;
    for (let seed = 1; seed <= (payload.calls ?? 1); seed++) result = await invoke(runner, payload.call ?? "generate", seed);
    outcome = { result };
  } catch (error) {
    outcome = { error };
  } finally {
    await runner?.dispose();
  }
  assertHostUnaffected();
  const contained = payload.contained;
  if ("kind" in contained) {
    if ("result" in outcome) assert.fail(`not refused: it returned ${JSON.stringify(outcome.result)?.slice(0, 300)}`);
    const error = outcome.error;
    assert.ok(SandboxError.isInstance(error), `expected a SandboxError, got ${String(error)}`);
    const kinds: SandboxFailureKind[] = typeof contained.kind === "string" ? [contained.kind] : contained.kind;
    assert.ok(kinds.includes(error.kind), `expected ${kinds.join(" or ")}, got ${error.message}`);
    if (contained.message !== undefined) assert.match(error.message, contained.message);
  } else {
    if ("error" in outcome) assert.fail(`expected a harmless result, got ${String(outcome.error)}`);
    const problem = contained.check(outcome.result);
    assert.equal(problem, undefined, problem);
  }
}

async function invoke(runner: SandboxedModuleRunner, call: NonNullable<HostilePayload["call"]>, seed: number): Promise<unknown> {
  if (call === "load") return runner.capability;
  if (call === "generate") return runner.generate(seed);
  if (call === "runTool") return runner.runTool({ reservations: {} }, "get_reservation_details", { reservation_id: "R1000" });
  const instance: ModuleInstance = { state: {}, request: "x", followUps: [], solution: [], mustSay: [], facts: { id: "R1000" } };
  return runner.verify({ instance, calls: [], replies: [], finalState: { reservations: {} } });
}

const tally = { tried: 0, contained: 0 };
describe("red team: hostile modules are contained", { concurrency: 4 }, () => {
  after(() => {
    console.log(`red team: ${tally.tried} payloads tried, ${tally.contained} contained`);
  });
  for (const payload of hostilePayloads) {
    test(`[${payload.category}] ${payload.name}`, async () => {
      tally.tried++;
      await attack(payload);
      tally.contained++;
    });
  }
});

test("after every attack the host still runs modules normally", async () => {
  await stillWorks(await load());
  assertHostUnaffected();
});
