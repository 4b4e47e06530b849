import assert from "node:assert/strict";
import { test } from "node:test";
import { formatUserScenario, indentText } from "./user-scenario.js";

test("indent skips whitespace-only lines like textwrap.indent", () => {
  assert.equal(indentText("a\n\nb\n", "\t"), "\ta\n\n\tb\n");
});

test("structured instructions render in τ²-bench's order with optional sections", () => {
  const text = formatUserScenario({
    persona: null,
    instructions: { domain: "airline", reason_for_call: "Cancel.\nNow.", known_info: "Id x", unknown_info: null, task_instructions: "Be firm." },
  });
  assert.equal(text, "Instructions:\n\tDomain: airline\n\tReason for call:\n\t\tCancel.\n\t\tNow.\n\tKnown info:\n\t\tId x\n\tTask instructions:\n\t\tBe firm.");
});
