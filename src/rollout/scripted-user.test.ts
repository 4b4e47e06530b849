import assert from "node:assert/strict";
import { test } from "node:test";
import { createScriptedUser, SCRIPTED_USER_STOP } from "./scripted-user.js";

test("the scripted user says its lines in order, then stops on every later turn", async () => {
  const user = createScriptedUser(["Hi, I need help.", "My reservation is EHGLP3."]);
  const said: string[] = [];
  for (let turn = 0; turn < 4; turn += 1) said.push((await user.respond([])).content);
  assert.deepEqual(said, ["Hi, I need help.", "My reservation is EHGLP3.", SCRIPTED_USER_STOP, SCRIPTED_USER_STOP]);
});

test("a scripted user with no lines stops at once, and its script is copied", async () => {
  assert.equal((await createScriptedUser([]).respond([])).content, "###STOP###");
  const lines = ["one"];
  const user = createScriptedUser(lines);
  lines[0] = "changed";
  assert.equal((await user.respond([])).content, "one");
});
