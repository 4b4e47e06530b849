import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_EXPERT_DEFICITS, unseenIdentifiers } from "../envs/mini/index.js";
import { expertGarblingAfterLookup } from "../testing/mini-test-clients.js";
import type { AssistantMessage, Message } from "../spec/message.js";
import type { Datum } from "../worker/trainer-types.js";
import { correctionDatums } from "./base-stage.js";

test("corrections label every state the policy reached with the expert's action; \"copying\" keeps only the states where it wrote an unseen id", async () => {
  const seen: (readonly Message[])[] = [];
  const toDatum = (messages: readonly Message[]): Promise<Datum> => {
    seen.push(messages);
    return Promise.resolve({ tokens: [messages.length], targetTokens: [0], weights: [1] });
  };
  const common = { world: { families: ["precondition", "payment", "composite"] as const, maxSteps: 20 }, seeds: Array.from({ length: 30 }, (_, index) => 5_000 + index), practiceShare: 0, deficits: { ...NO_EXPERT_DEFICITS }, policy: expertGarblingAfterLookup(), temperature: 1, maxTokens: 128, toDatum };
  const all = await correctionDatums({ ...common, states: "all" });
  assert.equal(all.round.episodes, 30);
  assert.ok(all.round.states > 60 && all.round.trained === all.round.states && all.datums.length === all.round.states, JSON.stringify(all.round));
  assert.ok(all.round.disagreements > 0 && all.round.disagreements < all.round.states, JSON.stringify(all.round));
  seen.length = 0;
  const copying = await correctionDatums({ ...common, states: "copying" });
  assert.deepEqual([copying.round.states, copying.round.disagreements], [all.round.states, all.round.disagreements], "the same episodes and labels");
  assert.ok(copying.round.trained > 0 && copying.round.trained < copying.round.states, JSON.stringify(copying.round));
  // Each kept datum ends on the expert's corrected call, whose ids are all in the conversation before it.
  assert.equal(seen.length, copying.round.trained);
  for (const messages of seen) {
    const label = messages.at(-1) as AssistantMessage;
    assert.ok(label.tool_calls !== undefined, JSON.stringify(label));
    assert.deepEqual(unseenIdentifiers(messages.slice(0, -1), label), []);
  }
});
