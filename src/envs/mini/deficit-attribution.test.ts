import assert from "node:assert/strict";
import { test } from "node:test";
import { runEpisode } from "../../rollout/agent-loop.js";
import { createInstanceUser } from "../../rollout/instance-user.js";
import { createModuleEnvironment, nativeModuleRunner } from "../modules/index.js";
import { verifierInputFromCalls, verifierInputFromMessages } from "../modules/verifier-input.js";
import type { Message } from "../../spec/message.js";
import { attributeMiniFailure, episodeClaims, episodeSlips, type DesignedDeficit } from "./deficit-attribution.js";
import { NO_EXPERT_DEFICITS, type ExpertDeficits } from "./expert-deficits.js";
import { miniTargetModule } from "./mini-capability-modules.js";
import { createScriptedExpert } from "./scripted-expert.js";

const module = miniTargetModule(["precondition", "payment", "composite"]);
const runner = nativeModuleRunner(module);

async function attributions(deficits: Partial<ExpertDeficits>, count: number) {
  const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: count }, (_, index) => 500 + index) });
  const results = [];
  for (const task of environment.tasks()) {
    const instance = environment.instance(task);
    const result = await runEpisode({ environment, task, policy: createScriptedExpert({ deficits }), user: createInstanceUser(instance) });
    const own = await verifierInputFromMessages(runner, instance, result.trajectory.messages);
    const gold = await verifierInputFromCalls(runner, instance, instance.solution, []);
    const breakdown = result.trajectory.reward?.breakdown ?? {};
    results.push({ instance, success: result.trajectory.reward?.success === true, attribution: attributeMiniFailure(instance, own, gold, breakdown.COMMUNICATE === 1) });
  }
  return results;
}

test("composite target: the flawless expert solves every task, tasks of several parts among them", async () => {
  const results = await attributions(NO_EXPERT_DEFICITS, 60);
  assert.equal(results.filter((result) => result.success).length, 60);
  const composite = results.filter((result) => result.instance.facts.family === "composite");
  assert.ok(composite.length > 10, `${composite.length} composite tasks`);
  const kinds = new Set(composite.flatMap((result) => (result.instance.facts.parts as { kind: string }[]).map((part) => part.kind)));
  assert.deepEqual([...kinds].sort(), ["cancel", "pay"]);
});

const cases: [keyof ExpertDeficits, DesignedDeficit][] = [
  ["skipPreconditionCheck", "precondition"],
  ["wrongPaymentMethod", "payment"],
  ["stopAfterFirstChange", "incomplete"],
];
for (const [deficit, designed] of cases) {
  test(`${deficit} at rate 1: every failure is attributed to ${designed} alone`, async () => {
    const results = await attributions({ ...NO_EXPERT_DEFICITS, [deficit]: 1 }, 90);
    const failed = results.filter((result) => !result.success);
    assert.ok(failed.length >= 10, `${failed.length} failures`);
    for (const { instance, attribution } of failed) assert.deepEqual(attribution, { deficits: [designed], other: false }, instance.request);
    // Composite tasks fail through it too: tasks that need several capabilities at once.
    assert.ok(failed.some((result) => result.instance.facts.family === "composite"));
  });
}

test("two deficits at once: every failure is explained by them, a first change that rewrites the method an order already had included", async () => {
  const results = await attributions({ ...NO_EXPERT_DEFICITS, wrongPaymentMethod: 1, stopAfterFirstChange: 1 }, 200);
  const failed = results.filter((result) => !result.success);
  for (const { instance, attribution } of failed) {
    assert.equal(attribution.other, false, instance.request);
    assert.ok(attribution.deficits.length > 0);
  }
  // The case a state diff alone misses: the wrong method was already the order's, so the write changed nothing.
  const noOp = failed.filter(({ instance }) => {
    const parts = (instance.facts.parts ?? []) as { kind: string; order_id: string }[];
    const first = parts[0];
    const orders = instance.state.orders as Record<string, { payment_method_id: string }>;
    return parts.length > 1 && first?.kind === "pay" && orders[first.order_id]?.payment_method_id === instance.facts.first_payment_method_id;
  });
  assert.ok(noOp.length > 0, "no composite task whose first change is a no-op among the seeds");
  for (const { attribution } of noOp) assert.deepEqual(attribution, { deficits: ["incomplete", "payment"], other: false });
});

test("a garbled id or a reply that says nothing is something else", async () => {
  const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: 40 }, (_, index) => 900 + index) });
  const task = environment.tasks().find((candidate) => environment.instance(candidate).facts.family === "payment")!;
  const instance = environment.instance(task);
  const gold = await verifierInputFromCalls(runner, instance, instance.solution, []);
  const orderId = (instance.facts.order_ids as string[])[0]!;
  const garbled: Message[] = [
    { role: "user", content: instance.request },
    { role: "assistant", content: null, tool_calls: [{ id: "c0", type: "function", function: { name: "modify_pending_order_payment", arguments: JSON.stringify({ order_id: orderId.replace(/\d$/, "0"), payment_method_id: "card_0000" }) } }] },
    { role: "assistant", content: "Done." },
  ];
  const own = await verifierInputFromMessages(runner, instance, garbled);
  assert.deepEqual(attributeMiniFailure(instance, own, gold, true), { deficits: [], other: true });
  const silent = await verifierInputFromCalls(runner, instance, instance.solution, ["Done."]);
  assert.deepEqual(attributeMiniFailure(instance, silent, gold, false), { deficits: [], other: true });
});

test("free-running slips: the expert's own episodes show none; an invented id, a repeated accepted write and a refused call are each seen", async () => {
  const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: 40 }, (_, index) => 700 + index) });
  for (const task of environment.tasks()) {
    // The deficits make wrong choices, never slips: ids copied from the conversation, each write once.
    const result = await runEpisode({ environment, task, policy: createScriptedExpert({ deficits: { skipPreconditionCheck: 0.5, wrongPaymentMethod: 0.5, stopAfterFirstChange: 0.5 } }), user: createInstanceUser(environment.instance(task)) });
    assert.deepEqual(episodeSlips(result.trajectory.messages), { inventedIdentifier: false, repeatedWrite: false, refusedCall: false }, task.id);
  }
  const call = (id: string, name: string, args: Record<string, string>) => ({ role: "assistant" as const, content: null, tool_calls: [{ id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } }] });
  const cancelled = '{"user_id":"u12","status":"cancelled"}';
  const conversation = (...rest: Message[]): Message[] => [{ role: "user", content: "I am u12. Please cancel order #W30, I no longer need it." }, ...rest];
  const invented = conversation(call("a", "get_order_details", { order_id: "#W33" }), { role: "tool", tool_call_id: "a", content: '{"status":"pending"}' });
  assert.deepEqual(episodeSlips(invented), { inventedIdentifier: true, repeatedWrite: false, refusedCall: false });
  // A prefix of an id in the conversation is no copy of it.
  assert.equal(episodeSlips(conversation(call("a", "get_order_details", { order_id: "#W3" }))).inventedIdentifier, true);
  // An id the tools returned earlier is copied, not invented; the same cancellation twice (keys in another order) is a repeat.
  const repeated = conversation(
    call("a", "get_user_details", { user_id: "u12" }),
    { role: "tool", tool_call_id: "a", content: '{"orders":["#W30","#W41"]}' },
    call("b", "cancel_pending_order", { order_id: "#W41", reason: "no longer needed" }),
    { role: "tool", tool_call_id: "b", content: cancelled },
    { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "cancel_pending_order", arguments: '{"reason": "no longer needed", "order_id": "#W41"}' } }] },
    { role: "tool", tool_call_id: "c", content: cancelled },
  );
  assert.deepEqual(episodeSlips(repeated), { inventedIdentifier: false, repeatedWrite: true, refusedCall: false });
  // A refused write tried again is no repeat of an accepted one.
  const refused = conversation(
    call("a", "cancel_pending_order", { order_id: "#W30", reason: "because" }),
    { role: "tool", tool_call_id: "a", content: "Error: invalid reason", error: true },
    call("b", "cancel_pending_order", { order_id: "#W30", reason: "because" }),
    { role: "tool", tool_call_id: "b", content: "Error: invalid reason" },
  );
  assert.deepEqual(episodeSlips(refused), { inventedIdentifier: false, repeatedWrite: false, refusedCall: true });
});

test("closing claims: the flawless expert and the status-skipping one claim only what they did; the early stop claims unmade changes, a looked-up non-pending order among them", async () => {
  const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: 60 }, (_, index) => 800 + index) });
  const claimsOf = async (deficits: Partial<ExpertDeficits>) => {
    const found = [];
    for (const task of environment.tasks()) {
      const instance = environment.instance(task);
      const result = await runEpisode({ environment, task, policy: createScriptedExpert({ deficits: { ...NO_EXPERT_DEFICITS, ...deficits } }), user: createInstanceUser(instance) });
      found.push({ instance, claims: episodeClaims(result.trajectory.messages) });
    }
    return found;
  };
  for (const deficits of [{}, { skipPreconditionCheck: 1 }, { wrongPaymentMethod: 1 }]) {
    for (const { instance, claims } of await claimsOf(deficits)) assert.deepEqual(claims, { unmadeChange: false, notPendingCalledCancelled: false }, `${JSON.stringify(deficits)} ${instance.request}`);
  }
  const early = await claimsOf({ stopAfterFirstChange: 1 });
  const flagged = early.filter(({ claims }) => claims.unmadeChange);
  assert.ok(flagged.length >= 5, `the early stop claims unmade changes in several episodes (${flagged.length})`);
  for (const { instance } of flagged) {
    const requested = Array.isArray(instance.facts.parts) ? instance.facts.parts.length : (instance.facts.order_ids as string[]).length;
    assert.ok(requested >= 2, `only a request of several changes can be stopped early: ${instance.request}`);
  }
  assert.ok(early.some(({ claims }) => claims.notPendingCalledCancelled), "a part looked up and found not pending, then claimed cancelled with the rest");
  assert.ok(early.every(({ claims }) => !claims.notPendingCalledCancelled || claims.unmadeChange));

  const call = (id: string, name: string, args: Record<string, string>): Message => ({ role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] });
  const opening: Message = { role: "user", content: "I am u12. Cancel order #W30 and pay order #W41 with my card ending 1234." };
  // A refused cancellation and a payment never attempted, both claimed: unmade; no lookup, so no non-pending order.
  assert.deepEqual(
    episodeClaims([opening, call("a", "cancel_pending_order", { order_id: "#W30", reason: "no longer needed" }), { role: "tool", tool_call_id: "a", content: "Error: not pending", error: true }, { role: "assistant", content: "Order #W30 is cancelled. Order #W41 is now paid with your card ending 1234." }]),
    { unmadeChange: true, notPendingCalledCancelled: false },
  );
  // Both made and claimed; a tool-call turn after the claim is no closing reply.
  const made: Message[] = [
    opening,
    call("a", "cancel_pending_order", { order_id: "#W30", reason: "no longer needed" }),
    { role: "tool", tool_call_id: "a", content: '{"status":"cancelled"}' },
    call("b", "modify_pending_order_payment", { order_id: "#W41", payment_method_id: "card_1234" }),
    { role: "tool", tool_call_id: "b", content: '{"status":"pending"}' },
    { role: "assistant", content: "Orders #W30 and #W41 are cancelled." },
  ];
  assert.deepEqual(episodeClaims(made), { unmadeChange: true, notPendingCalledCancelled: false }, "#W41 was paid, not cancelled");
  assert.deepEqual(episodeClaims([...made.slice(0, -1), { role: "assistant", content: "Order #W30 is cancelled. Order #W41 is now paid with card_1234." }]), { unmadeChange: false, notPendingCalledCancelled: false });
  const delivered: Message[] = [opening, call("a", "get_order_details", { order_id: "#W30" }), { role: "tool", tool_call_id: "a", content: '{"status":"delivered"}' }, { role: "assistant", content: "Orders #W41 and #W30 are cancelled." }];
  assert.deepEqual(episodeClaims(delivered), { unmadeChange: true, notPendingCalledCancelled: true });
  assert.deepEqual(episodeClaims([...delivered.slice(0, -1), { role: "assistant", content: "Order #W30 cannot be cancelled because it is delivered." }]), { unmadeChange: false, notPendingCalledCancelled: false });
});
