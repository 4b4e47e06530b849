import assert from "node:assert/strict";
import { test } from "node:test";
import { createScriptedExpert, miniTargetModule, NO_EXPERT_DEFICITS } from "../envs/mini/index.js";
import { createModuleEnvironment, nativeModuleRunner } from "../envs/modules/index.js";
import { runEpisode } from "../rollout/agent-loop.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { Message } from "../spec/message.js";
import type { EpisodeRecord } from "../store/trajectory-store.js";
import { miniFailuresLine, summarizeMiniFailures } from "./mini-failures.js";

const runner = nativeModuleRunner(miniTargetModule(["precondition", "payment", "composite"]));

/** A finished episode record of `taskId` with `messages` (only the fields the summary reads matter). */
function record(taskId: string, messages: Message[], success: boolean, communicated: boolean): EpisodeRecord {
  return {
    environment: "mini-service",
    taskId,
    trial: 0,
    status: "finished",
    seed: null,
    attempts: 1,
    startedAt: null,
    finishedAt: null,
    updatedAt: "",
    termination: null,
    reward: success ? 1 : 0,
    success,
    rewardInfo: { reward: success ? 1 : 0, success, breakdown: { COMMUNICATE: communicated ? 1 : 0 } },
    sourceRewardInfo: null,
    messages,
    error: null,
    metadata: null,
    extra: null,
  };
}

test("failed episodes no deficit explains are broken down by the free-running slips they show", async () => {
  const environment = await createModuleEnvironment({ runner, seeds: Array.from({ length: 40 }, (_, index) => 900 + index) });
  const payment = environment.tasks().filter((task) => environment.instance(task).facts.family === "payment");
  const records: EpisodeRecord[] = [];
  // Solved, and failed through the designed payment deficit: counted, not "other".
  for (const [task, deficits] of [[payment[0]!, NO_EXPERT_DEFICITS], [payment[1]!, { ...NO_EXPERT_DEFICITS, wrongPaymentMethod: 1 }]] as const) {
    const result = await runEpisode({ environment, task, policy: createScriptedExpert({ deficits }), user: createInstanceUser(environment.instance(task)) });
    const reward = result.trajectory.reward;
    records.push(record(task.id, result.trajectory.messages, reward?.success === true, reward?.breakdown?.COMMUNICATE === 1));
  }
  // A garbled order id, refused by the tool, then a reply as if done: something else, with two slips.
  const instance = environment.instance(payment[2]!);
  const orderId = (instance.facts.order_ids as string[])[0]!;
  const garbled: Message[] = [
    { role: "user", content: instance.request },
    { role: "assistant", content: null, tool_calls: [{ id: "c0", type: "function", function: { name: "modify_pending_order_payment", arguments: JSON.stringify({ order_id: `${orderId}7`, payment_method_id: instance.facts.payment_method_id as string }) } }] },
    { role: "tool", tool_call_id: "c0", content: "Error: order not found", error: true },
    { role: "assistant", content: "Done." },
  ];
  records.push(record(payment[2]!.id, garbled, false, true));
  // A delivered or processed order looked up, left alone, then called cancelled: something else, no slip, a false claim.
  const notPending = environment.tasks().find((task) => environment.instance(task).facts.family === "precondition" && environment.instance(task).facts.status !== "pending")!;
  const lookedUp = environment.instance(notPending);
  const lookedUpId = (lookedUp.facts.order_ids as string[])[0]!;
  const claimed: Message[] = [
    { role: "user", content: lookedUp.request },
    { role: "assistant", content: null, tool_calls: [{ id: "c0", type: "function", function: { name: "get_order_details", arguments: JSON.stringify({ order_id: lookedUpId }) } }] },
    { role: "tool", tool_call_id: "c0", content: JSON.stringify({ status: lookedUp.facts.status }) },
    { role: "assistant", content: `Order ${lookedUpId} is cancelled.` },
  ];
  records.push(record(notPending.id, claimed, false, false));

  const summary = await summarizeMiniFailures(environment, records);
  assert.equal(records[1]!.success, false, "the payment deficit fails its task");
  assert.deepEqual({ episodes: summary.episodes, failed: summary.failed, explained: summary.explained, other: summary.other }, { episodes: 4, failed: 3, explained: 1, other: 2 });
  assert.deepEqual(summary.otherSlips, { inventedIdentifier: 1, repeatedWrite: 0, refusedCall: 1, none: 1 });
  assert.deepEqual(summary.otherClaims, { unmadeChange: 1, notPendingCalledCancelled: 1 }, "only the looked-up order called cancelled claims a change");
  assert.deepEqual(summary.byFamily.payment, { failed: 2, explained: 1, byDeficit: { incomplete: 0, payment: 1, precondition: 0 } }, "per family, the deficits its failures show");
  assert.match(
    miniFailuresLine(summary),
    /: 1\/3 \(33\.3%; incomplete 0, payment 1, precondition 0; other 2 \(invented id 1, repeated write 0, refused call 1, none of these 1; a reply claiming a change never made 1, of which a looked-up non-pending order called cancelled 1\)\)$/,
  );
});
