import assert from "node:assert/strict";
import { test } from "node:test";
import { tau2DomainDirectory } from "../../testing/shared-data.js";
import { AGENT_GREETING, isAgentStop, isUserStop } from "./conversation-rules.js";
import { loadTau2Domain } from "./domains.js";
import { createTau2Environment, UnknownTaskError } from "./environment.js";
import { goldConversation } from "./gold-trajectory.js";

const airline = createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline")), { maxSteps: 50 });
const retail = createTau2Environment(loadTau2Domain("retail", tau2DomainDirectory("retail")));

test("the environments expose τ²-bench's tools, prompt and rules", () => {
  assert.equal(airline.name, "tau2-airline");
  assert.equal(airline.tools(airline.tasks()[0]!).length, 14);
  const retailTools = retail.tools(retail.tasks()[0]!).map((tool) => tool.function.name);
  assert.equal(retailTools.length, 15);
  assert.ok(!retailTools.includes("get_item_details"));
  const prompt = airline.systemPrompt(airline.tasks()[0]!);
  assert.ok(prompt.startsWith("<instructions>\nYou are a customer service agent"));
  assert.ok(prompt.endsWith(`<policy>\n${airline.data.policy}\n</policy>`));
  assert.deepEqual([airline.rules.greeting, airline.rules.maxSteps, airline.rules.maxErrors], [AGENT_GREETING, 50, 10]);
  assert.equal(retail.rules.maxSteps, 100);
});

test("stop tokens end the conversation for the user and the agent", () => {
  assert.ok(isUserStop("Thanks! ###STOP###"));
  assert.ok(isUserStop("###TRANSFER###"));
  assert.ok(isUserStop("###OUT-OF-SCOPE###"));
  assert.ok(!isUserStop("stop"));
  assert.ok(isAgentStop("###STOP###"));
  assert.ok(!isAgentStop(null));
});

test("episodes have independent states and tool errors come back as observations", () => {
  const task = airline.task("0");
  const first = airline.start(task);
  const second = airline.start(task);
  const cancel = { id: "c", type: "function" as const, function: { name: "cancel_reservation", arguments: '{"reservation_id": "EHGLP3"}' } };
  assert.equal(first.executeToolCall(cancel).error, false);
  const read = { id: "r", type: "function" as const, function: { name: "get_reservation_details", arguments: '{"reservation_id": "EHGLP3"}' } };
  assert.match(first.executeToolCall(read).content, /"status": "cancelled"/);
  assert.match(second.executeToolCall(read).content, /"status": null/);
  const bad = second.executeToolCall({ id: "b", type: "function", function: { name: "get_reservation_details", arguments: '{"reservation_id": 7' } });
  assert.equal(bad.error, true);
  assert.match(bad.content, /^Error: /);
});

test("grading through the protocol gives reward, success and breakdown", () => {
  const task = retail.tasks()[0]!;
  const reward = retail.grade(task, goldConversation(retail.data, retail.tau2Task(task)), "user_stop");
  assert.deepEqual([reward.reward, reward.success], [1, true]);
  assert.deepEqual(reward.breakdown, { DB: 1, COMMUNICATE: 1 });
  assert.equal(retail.grade(task, [], "max_steps").success, false);
  assert.throws(() => retail.task("nope"), UnknownTaskError);
});

test("task user instructions render τ²-bench's scenario text", () => {
  const task = airline.task("0");
  assert.ok(task.userInstructions.startsWith("Instructions:\n\tDomain: airline\n\tReason for call:\n\t\tYou want to cancel reservation EHGLP3."));
});

test("read tools are the domain's read-only tools; a task's hint is its gold actions and what to communicate", () => {
  assert.deepEqual([...airline.readTools!(airline.task("0"))].sort(), ["get_flight_status", "get_reservation_details", "get_user_details", "list_all_airports", "search_direct_flight", "search_onestop_flight"]);
  const task = airline.tasks().find((candidate) => (airline.tau2Task(candidate).evaluation_criteria?.actions?.length ?? 0) > 0)!;
  const actions = airline.tau2Task(task).evaluation_criteria!.actions!;
  const hint = airline.hint!(task)!;
  assert.ok(hint.startsWith("A correct solution makes these tool calls, in this order:\n"));
  assert.equal(hint.split("\n").filter((line) => line.startsWith("- ")).length, actions.length);
  assert.ok(hint.includes(`- ${actions[0]!.name}(${JSON.stringify(actions[0]!.arguments)})`));
});
