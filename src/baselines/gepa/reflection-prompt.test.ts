import assert from "node:assert/strict";
import { test } from "node:test";
import { extractProposedText, reflectionPromptText } from "./reflection-prompt.js";

test("the proposed text is what lies between the first and last fence, without a language tag", () => {
  assert.equal(extractProposedText("Sure:\n```markdown\nCheck the status.\n```\nDone."), "Check the status.");
  assert.equal(extractProposedText("```\nUnclosed text"), "Unclosed text");
  assert.equal(extractProposedText("Closing only\n```"), "Closing only");
  assert.equal(extractProposedText("  No fence at all. "), "No fence at all.");
});

test("the reflection prompt names the component and shows its text, each outcome's score, trace and feedback", () => {
  const text = reflectionPromptText("lookup_before_write", "Look things up.", [{ score: 0, trace: "[agent] hi", feedback: "missing lookup" }]);
  assert.match(text, /`lookup_before_write`/);
  assert.match(text, /```\nLook things up\.\n```/);
  assert.match(text, /### Task 1 \(score 0\)[\s\S]*\[agent\] hi[\s\S]*missing lookup/);
  assert.doesNotMatch(text, /\{\{/);
});
