import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, test } from "node:test";
import type { Message } from "../../spec/message.js";
import { loadTau2DomainData } from "./domain-data.js";
import { goldConversation } from "./gold-trajectory.js";
import { actionMatchesToolCall, communicateChecks, gradeTau2, observationsAgree } from "./grade.js";
import { toyDomain, writeToyDomainDirectory } from "../../testing/tau2-toy-domain.js";

const directory = writeToyDomainDirectory();
after(() => rmSync(directory, { recursive: true }));
const data = loadTau2DomainData(toyDomain, directory);
const task = data.tasks[0]!;

function call(id: string, name: string, args: unknown): Message {
  return { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] };
}

test("the gold conversation scores 1 with DB and COMMUNICATE in the breakdown", () => {
  const grade = gradeTau2(data, task, goldConversation(data, task), "user_stop");
  assert.equal(grade.rewardInfo.reward, 1);
  assert.deepEqual(grade.rewardInfo.reward_breakdown, { DB: 1, COMMUNICATE: 1 });
  assert.deepEqual(grade.unscoredNlAssertions, ["Agent deposits."]);
  assert.equal(grade.rewardInfo.nl_assertions, null);
  assert.deepEqual(grade.replayMismatches, []);
});

test("only agent or user stops are graded", () => {
  for (const termination of ["max_steps", "too_many_errors", "agent_error", "user_error"] as const) {
    const grade = gradeTau2(data, task, goldConversation(data, task), termination);
    assert.equal(grade.rewardInfo.reward, 0);
    assert.match(String(grade.rewardInfo.info?.note), new RegExp(termination));
  }
  assert.equal(gradeTau2(data, task, goldConversation(data, task), "agent_stop").rewardInfo.reward, 1);
});

test("a different write fails the DB check and names the differing record", () => {
  const actions = task.evaluation_criteria!.actions!.map((action) => (action.name === "deposit" ? { ...action, arguments: { ...action.arguments, amount: 6 } } : action));
  const grade = gradeTau2(data, task, goldConversation(data, task, { actions }), "user_stop");
  assert.equal(grade.rewardInfo.db_check?.db_match, false);
  assert.equal(grade.rewardInfo.reward, 0);
  assert.deepEqual(grade.databaseDifferences, ["accounts/a1"]);
});

test("omitting a communicated item fails COMMUNICATE only", () => {
  const grade = gradeTau2(data, task, goldConversation(data, task, { communicate: [] }), "user_stop");
  assert.deepEqual(grade.rewardInfo.reward_breakdown, { DB: 1, COMMUNICATE: 0 });
});

test("communicate check ignores case and commas in the message, not in the required string", () => {
  const messages: Message[] = [{ role: "assistant", content: "Your balance is 1,015 DOLLARS" }];
  assert.equal(communicateChecks(messages, ["1015 dollars"])[0]?.met, true);
  assert.equal(communicateChecks(messages, ["1,015"])[0]?.met, false);
  assert.equal(communicateChecks([{ role: "user", content: "1015" }], ["1015"])[0]?.met, false);
});

test("action checks compare only compare_args when given, all call arguments otherwise", () => {
  const deposit = task.evaluation_criteria!.actions![1]!;
  const make = (args: unknown) => ({ id: "x", type: "function" as const, function: { name: "deposit", arguments: JSON.stringify(args) } });
  assert.ok(actionMatchesToolCall(deposit, make({ id: "a1", amount: 5, note: "other" })));
  assert.ok(!actionMatchesToolCall(deposit, make({ id: "a1", amount: 4 })));
  const read = task.evaluation_criteria!.actions![0]!;
  assert.ok(!actionMatchesToolCall(read, make({ id: "a1" })), "different tool name");
  assert.ok(!actionMatchesToolCall(read, { ...make({}), function: { name: "get_account", arguments: '{"id": "a1", "verbose": true}' } }));
  const grade = gradeTau2(data, task, [call("c1", "deposit", { id: "a1", amount: 5 })], "user_stop");
  assert.deepEqual(grade.rewardInfo.action_checks?.map((check) => check.action_match), [false, true]);
  assert.equal(grade.rewardInfo.reward_breakdown?.ACTION, undefined, "actions are not in the default reward basis");
});

test("replay reports recorded observations that the tools do not reproduce", () => {
  const messages: Message[] = [call("c1", "get_account", { id: "a1" }), { role: "tool", tool_call_id: "c1", content: '{"id": "a1", "balance": 11, "notes": []}' }];
  const grade = gradeTau2(data, task, messages, "user_stop");
  assert.equal(grade.replayMismatches.length, 1);
  assert.equal(grade.replayMismatches[0]?.toolName, "get_account");
});

test("observations agree as parsed JSON (key order, 1 == 1.0) and otherwise as strings", () => {
  assert.ok(observationsAgree('{"a": 1, "b": 2.0}', '{"b": 2, "a": 1.0}'));
  assert.ok(observationsAgree("Error: x", "Error: x"));
  assert.ok(!observationsAgree("Error: x", "Error: y"));
  assert.ok(!observationsAgree('"1"', "1"));
});

test("a task without expected actions has a DB reward of 1 whatever happens", () => {
  const chat = data.tasks[1]!;
  const grade = gradeTau2(data, chat, [call("c1", "deposit", { id: "a2", amount: 1 })], "user_stop");
  assert.equal(grade.rewardInfo.reward, 1);
  assert.equal((grade.rewardInfo.info?.env as { note: string }).note, "No expected actions or env assertions");
});

test("calls pair with observations by position, so reused tool-call ids do not confuse the replay", () => {
  const messages: Message[] = [
    call("same", "get_account", { id: "a1" }),
    { role: "tool", tool_call_id: "same", content: '{"id": "a1", "balance": 10, "notes": []}' },
    call("same", "deposit", { id: "a1", amount: 1 }),
    { role: "tool", tool_call_id: "same", content: '{"id": "a1", "balance": 11, "notes": []}' },
  ];
  assert.deepEqual(gradeTau2(data, task, messages, "user_stop").replayMismatches, []);
});
