import assert from "node:assert/strict";
import { test } from "node:test";
import type { CapabilityModule, Json } from "../modules/capability-module.js";
import { checkDeterminism, createModuleSdk, nativeModuleRunner, playDoNothing, playReadOnly, playSolution } from "../modules/index.js";
import { atDifficulty } from "../modules/module-runner.js";
import {
  MINI_CAPABILITY_MODULES,
  MINI_MULTI_STEP_COMPLETION_BY_PART,
  MINI_MULTI_STEP_COMPLETION_CHECKED,
  MINI_MULTI_STEP_COMPLETION_COMPOSITE,
  MINI_PRACTICE_MODULES,
  MINI_PRECONDITION_VERIFICATION_HARD_STATUSES,
  MINI_PRECONDITION_VERIFICATION_STATE_CREDIT,
  MINI_TARGET_MODULE,
  MINI_TOOL_CALLING_PRECISION_NAMED_LATER,
} from "./mini-capability-modules.js";
import miniService, { createMiniModule, MINI_DIFFICULTY } from "./mini-service-module.js";

const seeds = Array.from({ length: 100 }, (_, index) => index);
const sdk = createModuleSdk();

for (const module of [MINI_TARGET_MODULE, ...MINI_PRACTICE_MODULES]) {
  test(`${module.capability}: deterministic per seed, gold solves, do-nothing and read-only fail`, async () => {
    const runner = nativeModuleRunner(module);
    const report = await checkDeterminism(runner, seeds.slice(0, 30));
    assert.equal(report.deterministic, true, JSON.stringify(report.mismatches[0]));
    assert.deepEqual(module.generate(7, sdk), module.generate(7, sdk));
    assert.notDeepEqual(module.generate(7, sdk), module.generate(8, sdk));
    let solved = 0;
    for (const seed of seeds) {
      if ((await playSolution(runner, seed)).success) solved += 1;
      assert.equal((await playDoNothing(runner, seed)).success, false, `do-nothing passes seed ${seed}`);
      assert.equal((await playReadOnly(runner, seed)).success, false, `read-only passes seed ${seed}`);
    }
    assert.ok(solved >= 99, `gold solves ${solved}/100`);
  });
}

test("the target draws all three families about equally; each practice module draws only its own (multi-step: both multi-part families)", () => {
  const families = (module: typeof miniService) => seeds.map((seed) => module.generate(seed, sdk).facts.family as string);
  const counts = new Map<string, number>();
  for (const family of families(MINI_TARGET_MODULE)) counts.set(family, (counts.get(family) ?? 0) + 1);
  assert.deepEqual([...counts.keys()].sort(), ["multi_cancel", "payment", "precondition"]);
  for (const count of counts.values()) assert.ok(count >= 20, JSON.stringify([...counts]));
  assert.deepEqual(MINI_CAPABILITY_MODULES.map((module) => [...new Set(families(module))].sort()), [["precondition"], ["payment"], ["composite", "multi_cancel"]]);
  assert.equal(miniService, MINI_TARGET_MODULE);
});

test("instances are small with short regular ids from the same range; practice sentences never occur in the target", () => {
  const numbers = (text: string) => [...text.matchAll(/(?:#W|\bu)(\d+)/g)].map((match) => Number(match[1]));
  const targetRequests = new Set<string>();
  for (const seed of seeds) {
    const instance = MINI_TARGET_MODULE.generate(seed, sdk);
    targetRequests.add(instance.request.replace(/#W\d+|\bu\d+|\d{4}/g, "X"));
    const users = instance.state.users as { [id: string]: { payment_methods: { payment_method_id: string; last_four: string }[] } };
    const orders = instance.state.orders as { [id: string]: Json };
    assert.equal(Object.keys(users).length, 1);
    const [userId, user] = Object.entries(users)[0]!;
    assert.match(userId, /^u\d\d$/);
    assert.ok(user.payment_methods.length >= 2 && user.payment_methods.length <= 3);
    for (const method of user.payment_methods) assert.match(method.payment_method_id, new RegExp(`^(card|gift)_${method.last_four}$`));
    assert.ok(Object.keys(orders).length >= 2 && Object.keys(orders).length <= 4);
    for (const id of Object.keys(orders)) assert.match(id, /^#W\d\d$/);
    for (const value of numbers(JSON.stringify(instance.state))) assert.ok(value >= 10 && value <= 59, `target id ${value}`);
  }
  for (const module of MINI_CAPABILITY_MODULES) {
    for (const seed of seeds) {
      const instance = module.generate(seed, sdk);
      for (const value of numbers(JSON.stringify(instance.state))) assert.ok(value >= 10 && value <= 59, `practice id ${value}`);
      assert.equal(targetRequests.has(instance.request.replace(/#W\d+|\bu\d+|\d{4}/g, "X")), false, instance.request);
    }
  }
});

test("precondition: pending in about half the seeds; the tools cancel a delivered order anyway, and the verifier counts it wrong", async () => {
  const module = createMiniModule({ capability: "only_precondition", description: "test", families: ["precondition"], phrasing: "target" });
  const runner = nativeModuleRunner(module);
  const instances = await Promise.all(seeds.map((seed) => runner.generate(seed)));
  const pending = instances.filter((instance) => instance.facts.status === "pending").length;
  assert.ok(pending >= 35 && pending <= 65, `pending ${pending}/100`);
  const refused = instances.find((instance) => instance.facts.status !== "pending")!;
  assert.deepEqual(refused.mustSay, ["cannot"]);
  const orderId = (refused.facts.order_ids as string[])[0]!;
  const outcome = await runner.runTool(refused.state, "cancel_pending_order", { order_id: orderId, reason: "no longer needed" });
  assert.equal(outcome.error, false);
  assert.match(outcome.output, /"status":"cancelled"/);
  const verdict = await runner.verify({ instance: refused, calls: [], replies: ["It cannot be cancelled."], finalState: outcome.state });
  assert.deepEqual(verdict, { reward: 0, success: false, breakdown: { DB: 0, COMMUNICATE: 1 } });
  const unsaid = await runner.verify({ instance: refused, calls: [], replies: ["Done."], finalState: refused.state });
  assert.deepEqual(unsaid.breakdown, { DB: 1, COMMUNICATE: 0 });
});

test("tools: compact JSON records, existence checks as errors that change nothing", () => {
  const instance = MINI_TARGET_MODULE.generate(3, sdk);
  const [userId] = Object.keys(instance.state.users as object);
  const [orderId] = Object.keys(instance.state.orders as object);
  const run = (name: string, args: { [key: string]: Json }) => MINI_TARGET_MODULE.runTool(instance.state, name, args, sdk);
  assert.equal(run("get_user_details", { user_id: userId! }).output, JSON.stringify((instance.state.users as { [id: string]: Json })[userId!]));
  assert.doesNotMatch(run("get_order_details", { order_id: orderId! }).output, /\s/);
  for (const [name, args] of [
    ["get_user_details", { user_id: "u00" }],
    ["get_order_details", { order_id: "#W00" }],
    ["cancel_pending_order", { order_id: orderId!, reason: "changed my mind" }],
    ["modify_pending_order_payment", { order_id: orderId!, payment_method_id: "card_0000" }],
    ["refund_everything", {}],
  ] as const) {
    const outcome = run(name, args);
    assert.equal(outcome.error, true, name);
    assert.match(outcome.output, /^Error: /);
    assert.deepEqual(outcome.state, instance.state);
  }
});

test("difficulty levels: the practice modules offer five, harder upwards; level 2 (and no level) draws the target's own worlds; the target has none", async () => {
  assert.equal(MINI_TARGET_MODULE.difficulty, undefined);
  const [precondition, payment, multiStep] = MINI_CAPABILITY_MODULES as [CapabilityModule, CapabilityModule, CapabilityModule];
  for (const module of [precondition, payment, multiStep]) assert.deepEqual(module.difficulty, { ...MINI_DIFFICULTY });
  const statistics = (module: CapabilityModule, level: number | undefined) => {
    const instances = seeds.map((seed) => module.generate(seed, sdk, level));
    const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const methods = instances.map((instance) => Object.values(instance.state.users as { [id: string]: { payment_methods: unknown[] } })[0]!.payment_methods.length);
    const orders = instances.map((instance) => Object.keys(instance.state.orders as object).length);
    const parts = instances.map((instance) => (instance.facts.order_ids as Json[]).length);
    return { methods: average(methods), fewestMethods: Math.min(...methods), mostMethods: Math.max(...methods), orders: average(orders), parts: average(parts), instances };
  };
  const byLevel = [0, 1, 2, 3, 4].map((level) => statistics(multiStep, level));
  assert.deepEqual([byLevel[0]!.fewestMethods, byLevel[0]!.mostMethods, byLevel[4]!.fewestMethods, byLevel[4]!.mostMethods], [2, 2, 4, 4]);
  for (let level = 1; level < 5; level += 1) {
    assert.ok(byLevel[level]!.methods >= byLevel[level - 1]!.methods && byLevel[level]!.parts >= byLevel[level - 1]!.parts && byLevel[level]!.orders > byLevel[level - 1]!.orders, `level ${level} is harder than ${level - 1}`);
  }
  assert.equal(sdk.hash(statistics(payment, 2).instances as unknown as Json), sdk.hash(statistics(payment, undefined).instances as unknown as Json));
  // Every level's worlds are solvable by their ground truth.
  for (const level of [0, 4]) for (const module of [precondition, payment, multiStep]) for (const seed of seeds.slice(0, 10)) {
    assert.equal((await playSolution(atDifficulty(nativeModuleRunner(module), level), seed)).reward, 1, `${module.capability} level ${level} seed ${seed}`);
  }
});

test("the multi-step world rewarded per part: the share of requested orders done, 0 when another order changed; success as τ²", async () => {
  const runner = nativeModuleRunner(MINI_MULTI_STEP_COMPLETION_BY_PART);
  const plain = nativeModuleRunner(MINI_CAPABILITY_MODULES[2]!);
  const instances = await Promise.all(seeds.map((seed) => runner.generate(seed, 3)));
  const instance = instances.find((candidate) => candidate.facts.family === "multi_cancel" && Object.keys(candidate.state.orders as object).length > 3)!;
  const requested = instance.facts.order_ids as string[];
  assert.equal(requested.length, 3, "level 3 asks for three cancellations");
  let state = instance.state;
  const after: (typeof state)[] = [];
  for (const call of instance.solution.filter((candidate) => candidate.name === "cancel_pending_order")) {
    state = (await runner.runTool(state, call.name, call.arguments)).state;
    after.push(state);
  }
  const verdict = (finalState: typeof state) => runner.verify({ instance, calls: [], replies: ["Done."], finalState });
  assert.deepEqual(await verdict(instance.state), { reward: 0, success: false, breakdown: { DB: 0, COMMUNICATE: 1, PARTS: 0 } });
  assert.deepEqual(await verdict(after[0]!), { reward: 1 / 3, success: false, breakdown: { DB: 0, COMMUNICATE: 1, PARTS: 1 / 3 } });
  assert.deepEqual(await verdict(after[2]!), { reward: 1, success: true, breakdown: { DB: 1, COMMUNICATE: 1, PARTS: 1 } });
  // The same episode in the all-or-nothing world: nothing for two of three.
  assert.deepEqual(await plain.verify({ instance, calls: [], replies: ["Done."], finalState: after[1]! }), { reward: 0, success: false, breakdown: { DB: 0, COMMUNICATE: 1 } });
  const other = Object.keys(instance.state.orders as object).find((id) => !requested.includes(id))!;
  const changed = (await runner.runTool(after[1]!, "cancel_pending_order", { order_id: other, reason: instance.facts.reason as string })).state;
  assert.equal((await verdict(changed)).reward, 0, "an unrequested order changed");
  // A single-part request (none in this world, but the option says so) keeps the all-or-nothing reward.
  const single = createMiniModule({ capability: "single_by_part", description: "test", families: ["precondition"], phrasing: "target", reward: "parts" });
  const singleInstance = single.generate(1, sdk);
  assert.deepEqual(Object.keys(single.verify({ instance: singleInstance, calls: [], replies: [], finalState: singleInstance.state }, sdk).breakdown), ["DB", "COMMUNICATE"]);
});

test("the tool-calling world named later: the named method is never the first listed, at every level; the plain world names it first in some seeds", () => {
  const namedFirst = (module: typeof miniService, level: number) =>
    seeds.filter((seed) => {
      const instance = module.generate(seed, sdk, level);
      const methods = (instance.state.users as Record<string, { payment_methods: { payment_method_id: string }[] }>)[instance.facts.user_id as string]!.payment_methods;
      return methods[0]!.payment_method_id === instance.facts.payment_method_id;
    }).length;
  for (const level of [0, 2, 4]) {
    assert.equal(namedFirst(MINI_TOOL_CALLING_PRECISION_NAMED_LATER, level), 0, `level ${level}`);
    assert.ok(namedFirst(MINI_CAPABILITY_MODULES[1]!, level) >= 15, `the plain world at level ${level}`);
  }
  assert.ok(seeds.every((seed) => MINI_TOOL_CALLING_PRECISION_NAMED_LATER.generate(seed, sdk).facts.family === "payment"));
});

test("the multi-part world: composite requests only, rewarded per part done right and per required word said", async () => {
  const runner = nativeModuleRunner(MINI_MULTI_STEP_COMPLETION_COMPOSITE);
  const instances = await Promise.all(seeds.map((seed) => runner.generate(seed, 2)));
  assert.ok(instances.every((instance) => instance.facts.family === "composite"));
  // A request with two writes: the first done, the second not; every word the task needs said.
  const instance = instances.find((candidate) => candidate.solution.filter((call) => call.name !== "get_order_details" && call.name !== "get_user_details").length === 2)!;
  const writes = instance.solution.filter((call) => call.name !== "get_order_details" && call.name !== "get_user_details");
  const halfway = (await runner.runTool(instance.state, writes[0]!.name, writes[0]!.arguments)).state;
  const verdict = await runner.verify({ instance, calls: [], replies: [instance.mustSay.join(", ")], finalState: halfway });
  assert.equal(verdict.success, false);
  assert.ok(verdict.reward > 0 && verdict.reward < 1, `reward ${verdict.reward}`);
  assert.equal(verdict.breakdown.WORDS, 1);
  // Each required word counts on its own: with two, saying one of them halves the reward.
  const twoWords = instances.find((candidate) => candidate.mustSay.length === 2)!;
  const both = await runner.verify({ instance: twoWords, calls: [], replies: [twoWords.mustSay.join(" and ")], finalState: twoWords.state });
  const one = await runner.verify({ instance: twoWords, calls: [], replies: [twoWords.mustSay[0]!], finalState: twoWords.state });
  assert.deepEqual([one.breakdown.WORDS, one.breakdown.COMMUNICATE], [0.5, 0]);
  assert.equal(one.reward, both.reward / 2);
  assert.equal(MINI_PRACTICE_MODULES.includes(MINI_MULTI_STEP_COMPLETION_COMPOSITE), true);
  assert.equal(MINI_CAPABILITY_MODULES.includes(MINI_MULTI_STEP_COMPLETION_COMPOSITE), false, "not one of the configurations' worlds");
});

test("the precondition world of hard statuses draws a quarter pending, a quarter processed and half delivered; shares that do not sum to 1 are refused", () => {
  const statuses = (module: CapabilityModule) => {
    const counts: Record<string, number> = {};
    for (let seed = 0; seed < 2000; seed += 1) {
      const status = module.generate(seed, sdk).facts.status as string;
      counts[status] = (counts[status] ?? 0) + 1;
    }
    return counts;
  };
  const hard = statuses(MINI_PRECONDITION_VERIFICATION_HARD_STATUSES);
  const plain = statuses(MINI_CAPABILITY_MODULES[0]!);
  assert.ok(Math.abs(hard.pending! / 2000 - 0.25) < 0.04 && Math.abs(hard.processed! / 2000 - 0.25) < 0.04 && Math.abs(hard.delivered! / 2000 - 0.5) < 0.04, JSON.stringify(hard));
  assert.ok(Math.abs(plain.pending! / 2000 - 0.5) < 0.04 && Math.abs(plain.delivered! / 2000 - 0.25) < 0.04, JSON.stringify(plain));
  assert.equal(MINI_CAPABILITY_MODULES.includes(MINI_PRECONDITION_VERIFICATION_HARD_STATUSES), false, "not one of the configurations' worlds");
  assert.throws(() => createMiniModule({ capability: "x", description: "test", families: ["precondition"], phrasing: "practice", statusShares: { pending: 0.5, processed: 0.5, delivered: 0.5 } }), /statusShares .*summing to 1/);
});

test("the checked multi-step world: a multi-cancellation's orders are pending in about half the draws, and cancelling them all unchecked fails when one is not", async () => {
  const runner = nativeModuleRunner(MINI_MULTI_STEP_COMPLETION_CHECKED);
  const instances = (await Promise.all(seeds.map((seed) => runner.generate(seed, 2)))).filter((instance) => instance.facts.family === "multi_cancel");
  const statuses = instances.flatMap((instance) => instance.facts.statuses as string[]);
  const pending = statuses.filter((status) => status === "pending").length / statuses.length;
  assert.ok(pending > 0.35 && pending < 0.65, `pending share ${pending}`);
  const mixed = instances.find((instance) => (instance.facts.statuses as string[]).some((status) => status !== "pending"))!;
  let state = mixed.state;
  for (const id of mixed.facts.order_ids as string[]) state = (await runner.runTool(state, "cancel_pending_order", { order_id: id, reason: mixed.facts.reason as string })).state;
  const blind = await runner.verify({ instance: mixed, calls: [], replies: ["Done: cancelled."], finalState: state });
  assert.equal(blind.success, false, "cancelling every order without a lookup");
  assert.ok(mixed.mustSay.includes("cannot"));
  // The plain world's multi-cancellations stay all pending, with nothing to say.
  const plain = await Promise.all(seeds.map((seed) => nativeModuleRunner(MINI_CAPABILITY_MODULES[2]!).generate(seed, 2)));
  for (const instance of plain.filter((candidate) => candidate.facts.family === "multi_cancel")) {
    assert.equal(instance.facts.statuses, undefined);
    assert.deepEqual(instance.mustSay, []);
  }
  assert.equal(MINI_CAPABILITY_MODULES.includes(MINI_MULTI_STEP_COMPLETION_CHECKED), false, "not one of the configurations' worlds");
});

test("the precondition world with state credit: half for leaving a non-pending order alone, all for then saying it cannot; nothing for cancelling it", async () => {
  const runner = nativeModuleRunner(MINI_PRECONDITION_VERIFICATION_STATE_CREDIT);
  const instance = (await Promise.all(seeds.map((seed) => runner.generate(seed, 2)))).find((candidate) => candidate.facts.status === "delivered")!;
  const left = (replies: string[]) => runner.verify({ instance, calls: [], replies, finalState: instance.state });
  assert.deepEqual([(await left(["Order is cancelled."])).reward, (await left(["It cannot be cancelled."])).reward], [0.5, 1]);
  assert.equal((await left(["Order is cancelled."])).success, false);
  const cancelled = (await runner.runTool(instance.state, "cancel_pending_order", { order_id: (instance.facts.order_ids as string[])[0]!, reason: instance.facts.reason as string })).state;
  assert.equal((await runner.verify({ instance, calls: [], replies: ["It cannot be cancelled."], finalState: cancelled })).reward, 0);
});
