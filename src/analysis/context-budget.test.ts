import assert from "node:assert/strict";
import { test } from "node:test";
import { batchTrajectories, estimateTokens } from "./context-budget.js";
import { extractJsonObject } from "./model-json.js";
import { renderTrajectory } from "../rollout/render-trajectory.js";

const item = (key: string, length: number) => ({ key, failed: false, reward: 1, text: "x".repeat(length) });

test("batches keep order, respect the token budget and the count limit, and cut an oversized trajectory to fit", () => {
  const batches = batchTrajectories([item("a", 300), item("b", 300), item("c", 300), item("d", 3000), item("e", 30)], 250, 2);
  assert.deepEqual(batches.map((batch) => batch.map((trajectory) => trajectory.key)), [["a", "b"], ["c"], ["d", "e"]]);
  for (const batch of batches) assert.ok(batch.reduce((sum, trajectory) => sum + estimateTokens(trajectory.text) + 1, 0) <= 250);
  assert.match(batches[2]?.[0]?.text ?? "", /chars omitted/);
});

test("a trajectory renders compactly: outcome header, messages, tool calls and shortened results, no system prompt", () => {
  const rendered = renderTrajectory(
    {
      key: "airline:7",
      failed: true,
      reward: 0,
      termination: "user_stop",
      messages: [
        { role: "system", content: "POLICY" },
        { role: "user", content: "Cancel my trip,\nplease." },
        { role: "assistant", content: null, tool_calls: [{ id: "1", type: "function", function: { name: "get_user_details", arguments: '{"user_id":"u1"}' } }] },
        { role: "tool", tool_call_id: "1", content: "y".repeat(1000) },
        { role: "assistant", content: "Done." },
      ],
    },
    { maxToolResultChars: 100 },
  );
  const lines = rendered.text.split("\n");
  assert.equal(lines[0], "### airline:7 — FAILED (reward 0, ended by user_stop)");
  assert.equal(lines[1], "[user] Cancel my trip, ⏎ please.");
  assert.equal(lines[2], '[agent calls] get_user_details({"user_id":"u1"})');
  assert.match(lines[3] ?? "", /^ {2}\[result\] y{70} … \[900 chars omitted\] … y{30}$/);
  assert.equal(lines[4], "[agent] Done.");
  assert.ok(!rendered.text.includes("POLICY"));
});

test("the JSON object of a reply is found behind reasoning and code fences", () => {
  assert.deepEqual(extractJsonObject('<think>{"no": 1}</think>Sure:\n```json\n{"labels": {}}\n```'), { ok: true, value: { labels: {} } });
  assert.equal(extractJsonObject("no json here").ok, false);
  assert.equal(extractJsonObject("{ broken").ok, false);
});
