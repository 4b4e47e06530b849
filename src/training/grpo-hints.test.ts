import assert from "node:assert/strict";
import { test } from "node:test";
import type { Environment } from "../spec/environment.js";
import { hintedMembers, hintedSystemPrompt, withSystemPrompt } from "./grpo-hints.js";

test("round(share × K) members of a group are hinted, never more than K", () => {
  assert.equal(hintedMembers(0.25, 16), 4);
  assert.equal(hintedMembers(0.5, 16), 8);
  assert.equal(hintedMembers(0.25, 8), 2);
  assert.equal(hintedMembers(0.25, 2), 1);
  assert.equal(hintedMembers(0.1, 4), 0);
  assert.equal(hintedMembers(0, 16), 0);
  assert.equal(hintedMembers(1, 3), 3);
});

test("the hint is appended to the system prompt as an <expert_guidance> block, for that task only", () => {
  assert.equal(hintedSystemPrompt("Policy.", "Call x."), "Policy.\n\n<expert_guidance>\nCall x.\n</expert_guidance>");
  const base = { name: "e", systemPrompt: (task: { id: string }) => `plain ${task.id}`, tasks: () => [] } as unknown as Environment;
  const hinted = withSystemPrompt(base, { id: "a", userInstructions: "" }, "hinted");
  assert.equal(hinted.systemPrompt({ id: "a", userInstructions: "" }), "hinted");
  assert.equal(hinted.systemPrompt({ id: "b", userInstructions: "" }), "plain b");
  assert.equal(hinted.name, "e");
  assert.deepEqual(hinted.tasks(), []);
});
