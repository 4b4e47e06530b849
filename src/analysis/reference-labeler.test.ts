import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { goldConversation } from "../envs/tau2/gold-trajectory.js";
import type { Tau2Action, Tau2Task } from "../envs/tau2/task-schema.js";
import { tau2DomainDirectory } from "../testing/shared-data.js";
import { identifierArguments, referenceLabels } from "./reference-labeler.js";

const airline = loadTau2Domain("airline", tau2DomainDirectory("airline"));
const task = (id: string): Tau2Task => {
  const found = airline.tasks.find((candidate) => candidate.id === id);
  assert.ok(found, `airline task ${id}`);
  return found;
};

// Airline task 11: change reservation GV1N64 (user james_patel_9828) to basic economy, paid with the user's gift card;
// the agent must tell the user "5244".
const TASK_11 = task("11");
const GOLD_WRITE = TASK_11.evaluation_criteria?.actions?.[0] as Tau2Action;
const action = (name: string, args: Record<string, unknown>): Tau2Action => ({ action_id: name, requestor: "assistant", name, arguments: args });
const LOOKUPS = [action("get_user_details", { user_id: "james_patel_9828" }), action("get_reservation_details", { reservation_id: "GV1N64" })];

function labels(actions: Tau2Action[], communicate: string[] = ["5244"], of: Tau2Task = TASK_11) {
  return referenceLabels(airline, of, goldConversation(airline, of, { actions, communicate }));
}

describe("referenceLabels", () => {
  test("a conversation that looks up, makes the gold change and states the required figure has every capability", () => {
    assert.deepEqual(labels([...LOOKUPS, GOLD_WRITE]), {
      complete_required_state_changes: "PRESENT",
      correct_write_arguments: "PRESENT",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "PRESENT",
      lookup_before_write: "PRESENT",
    });
  });

  test("skipping the change lacks completion; the capabilities about writes it never made are NA", () => {
    assert.deepEqual(labels(LOOKUPS), {
      complete_required_state_changes: "LACKING",
      correct_write_arguments: "NA",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "PRESENT",
      lookup_before_write: "NA",
    });
  });

  test("the right tool on the right record with a wrong argument lacks correct arguments only", () => {
    const flights = GOLD_WRITE.arguments.flights as unknown[];
    const oneFlight = { ...GOLD_WRITE, arguments: { ...GOLD_WRITE.arguments, flights: flights.slice(0, 1) } };
    const conversation = goldConversation(airline, TASK_11, { actions: [...LOOKUPS, oneFlight], communicate: ["5244"] });
    assert.ok(conversation.some((message) => message.role === "tool" && message.content.startsWith('{"reservation_id": "GV1N64"')), "the change succeeds");
    const result = referenceLabels(airline, TASK_11, conversation);
    assert.equal(result.complete_required_state_changes, "PRESENT");
    assert.equal(result.correct_write_arguments, "LACKING");
    assert.equal(result.avoid_unrequested_state_changes, "PRESENT");
  });

  test("changing a record the gold leaves alone lacks restraint", () => {
    const extra = [action("get_reservation_details", { reservation_id: "AAVMM8" }), action("cancel_reservation", { reservation_id: "AAVMM8" })];
    const result = labels([...LOOKUPS, GOLD_WRITE, ...extra]);
    assert.equal(result.avoid_unrequested_state_changes, "LACKING");
    assert.equal(result.complete_required_state_changes, "PRESENT");
    assert.equal(result.lookup_before_write, "PRESENT");
  });

  test("writing to a record never read, or with an identifier no tool returned, lacks lookup before write", () => {
    assert.equal(labels([LOOKUPS[0] as Tau2Action, GOLD_WRITE]).lookup_before_write, "LACKING");
    const madeUpPayment = { ...GOLD_WRITE, arguments: { ...GOLD_WRITE.arguments, payment_id: "gift_card_0000000" } };
    assert.equal(labels([...LOOKUPS, madeUpPayment]).lookup_before_write, "LACKING");
  });

  test("not stating a required item lacks communication; a task without one is NA", () => {
    assert.equal(labels([...LOOKUPS, GOLD_WRITE], ["the flights were changed"]).communicate_required_information, "LACKING");
    const task0 = task("0");
    assert.deepEqual(task0.evaluation_criteria?.actions, []);
    assert.deepEqual(referenceLabels(airline, task0, goldConversation(airline, task0)), {
      complete_required_state_changes: "NA",
      correct_write_arguments: "NA",
      avoid_unrequested_state_changes: "NA",
      communicate_required_information: "NA",
      lookup_before_write: "NA",
    });
  });

  test("identifier arguments are the strings under …_id and …_ids keys at any depth", () => {
    assert.deepEqual(identifierArguments({ order_id: "#W1", item_ids: ["1", "2"], reason: "x", payment_methods: [{ payment_id: "gc", amount: 3 }] }), ["#W1", "1", "2", "gc"]);
  });
});
