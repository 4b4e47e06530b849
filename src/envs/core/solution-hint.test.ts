import assert from "node:assert/strict";
import { test } from "node:test";
import { solutionHint } from "./solution-hint.js";

test("a solution hint lists the calls in order with their JSON arguments, then what to say; nothing gives undefined", () => {
  assert.equal(
    solutionHint([{ name: "get_user", arguments: { user_id: "u_1" } }, { name: "cancel", arguments: { id: "R7", reason: "plans" } }], ["R7 is cancelled"]),
    'A correct solution makes these tool calls, in this order:\n- get_user({"user_id":"u_1"})\n- cancel({"id":"R7","reason":"plans"})\nTell the user: R7 is cancelled.',
  );
  assert.equal(solutionHint([], ["42"]), "Tell the user: 42.");
  assert.equal(solutionHint([]), undefined);
});
