/** The airline domain's tool list and published tool specs (`tau2-acceptance.test.ts` replays the real runs). */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { airlineDomain } from "./index.js";
import { airlineToolKit } from "../../../testing/tau2-airline-test-support.js";

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
