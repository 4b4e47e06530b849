/** Replays every tool call of the recorded τ²-bench retail runs and compares the observations with τ²'s. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { jsonEquals } from "../../core/json-value.js";
import { observe, retailBase, retailTrajectoriesFile } from "./retail-test-data.js";

interface RecordedMessage {
  role: string;
  id?: string;
  content?: string | null;
  tool_calls?: { id: string; name: string; arguments: Record<string, unknown> }[] | null;
}

interface RecordedRun {
  simulations: { id: string; messages: RecordedMessage[] }[];
}

/** Python's `json.loads(a) == json.loads(b)`, or string equality when either is not JSON. */
function observationsEqual(actual: string, expected: string): boolean {
  try {
    return jsonEquals(JSON.parse(actual), JSON.parse(expected));
  } catch {
    return actual === expected;
  }
}

test("replaying every recorded retail tool call reproduces τ²-bench's observations", () => {
  const run = JSON.parse(readFileSync(retailTrajectoriesFile(), "utf8")) as RecordedRun;
  const base = retailBase();
  let calls = 0;
  let parsedEqual = 0;
  let byteIdentical = 0;
  const mismatches: string[] = [];
  for (const simulation of run.simulations) {
    const state = base.createState();
    // Models sometimes reuse a call id, so answers are matched to calls in order, per id.
    const answers = new Map<string, string[]>();
    for (const message of simulation.messages) {
      if (message.role !== "tool" || message.id === undefined) continue;
      answers.set(message.id, [...(answers.get(message.id) ?? []), message.content ?? ""]);
    }
    for (const message of simulation.messages) {
      for (const call of message.tool_calls ?? []) {
        const recorded = answers.get(call.id)?.shift();
        if (recorded === undefined) continue;
        const actual = observe(state, call.name, call.arguments);
        calls++;
        if (actual === recorded) byteIdentical++;
        if (observationsEqual(actual, recorded)) parsedEqual++;
        else mismatches.push(`${simulation.id} ${call.name}: ${actual.slice(0, 200)} ≠ ${recorded.slice(0, 200)}`);
      }
    }
  }
  console.log(`retail replay: ${calls} calls, ${parsedEqual} parsed-equal, ${byteIdentical} byte-identical`);
  assert.ok(calls > 0);
  assert.deepEqual(mismatches, []);
  assert.equal(byteIdentical, calls);
});
