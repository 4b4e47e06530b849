/** Replays every tool call of real τ²-bench airline runs and compares each observation with the recorded one. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { jsonEquals } from "../../core/json-value.js";
import { tau2DataDirectory } from "../../../testing/shared-data.js";
import { airlineDomain } from "./index.js";
import { airlineToolKit, freshState } from "./test-support.js";

interface RecordedMessage {
  role: string;
  id?: string;
  content?: string | null;
  tool_calls?: { id: string; name: string; arguments: Record<string, unknown> }[] | null;
}

interface RecordedRun {
  simulations: { id: string; task_id: string; messages: RecordedMessage[] }[];
}

function parsedOrText(text: string): { json: unknown } | { text: string } {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}

/** `json.loads(a) == json.loads(b)`, or string equality when either side is not JSON. */
function observationsAgree(actual: string, recorded: string): boolean {
  const left = parsedOrText(actual);
  const right = parsedOrText(recorded);
  if ("json" in left && "json" in right) return jsonEquals(left.json, right.json);
  return actual === recorded;
}

test("replaying the recorded airline runs reproduces every tool observation", () => {
  const file = path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");
  const run = JSON.parse(readFileSync(file, "utf8")) as RecordedRun;
  let calls = 0;
  let parsedEqual = 0;
  let byteIdentical = 0;
  const mismatches: string[] = [];
  for (const simulation of run.simulations) {
    const state = freshState();
    const pending = new Map<string, { name: string; arguments: Record<string, unknown> }>();
    for (const message of simulation.messages) {
      for (const call of message.tool_calls ?? []) pending.set(call.id, call);
      if (message.role !== "tool" || message.id === undefined) continue;
      const call = pending.get(message.id);
      assert.ok(call, `simulation ${simulation.id}: tool message ${message.id} has no call`);
      const recorded = message.content ?? "";
      const actual = airlineToolKit.execute(state, call.name, call.arguments).content;
      calls++;
      if (actual === recorded) byteIdentical++;
      if (observationsAgree(actual, recorded)) parsedEqual++;
      else mismatches.push(`task ${simulation.task_id} ${call.name}: got ${actual.slice(0, 200)}`);
    }
  }
  console.log(`airline replay: ${calls} calls, ${parsedEqual} parsed-equal, ${byteIdentical} byte-identical`);
  assert.deepEqual(mismatches, []);
  assert.ok(calls > 200, `expected the recorded runs to hold over 200 tool calls, found ${calls}`);
  assert.equal(byteIdentical, calls);
});

test("the domain lists τ²-bench's fourteen airline tools in order", () => {
  assert.equal(airlineDomain.name, "airline");
  assert.equal(airlineDomain.className, "AirlineTools");
  assert.deepEqual(
    airlineDomain.tools.map((tool) => [tool.name, tool.kind]),
    [
      ["book_reservation", "write"],
      ["calculate", "generic"],
      ["cancel_reservation", "write"],
      ["get_reservation_details", "read"],
      ["get_user_details", "read"],
      ["list_all_airports", "read"],
      ["search_direct_flight", "read"],
      ["search_onestop_flight", "read"],
      ["send_certificate", "write"],
      ["transfer_to_human_agents", "generic"],
      ["update_reservation_baggages", "write"],
      ["update_reservation_flights", "write"],
      ["update_reservation_passengers", "write"],
      ["get_flight_status", "read"],
    ],
  );
});

test("the tool specs are τ²-bench's openai_schema dump, byte for byte", () => {
  // sha256 of JSON.stringify of `[tool.openai_schema for tool in env.get_tools()]` from τ²-bench 0ed2fd8 with its
  // pinned pydantic 2.10.6.
  const digest = createHash("sha256").update(JSON.stringify(airlineToolKit.specs())).digest("hex");
  assert.equal(digest, "3cdb7147dfea7ba0d1be6d75df578008f1b3301dcc3d7e29b60127bebfa05eca");
  const book = airlineToolKit.specs()[0]?.function;
  assert.deepEqual(Object.keys(book?.parameters ?? {}), ["$defs", "properties", "required", "title", "type"]);
  assert.deepEqual((book?.parameters.properties as Record<string, Record<string, unknown>>).flights?.items, {
    anyOf: [{ $ref: "#/$defs/FlightInfo" }, { type: "object" }],
  });
});
