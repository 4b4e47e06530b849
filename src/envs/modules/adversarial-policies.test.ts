import assert from "node:assert/strict";
import { test } from "node:test";
import preconditionVerification from "../../synthesis/environments/precondition-verification.js";
import toolCallingPrecision from "../../synthesis/environments/tool-calling-precision.js";
import { argumentVariants, changedArgumentInput, everyWriteInput, oneExtraWriteInput, replayGroundTruth, siblingValues } from "./adversarial-policies.js";
import type { ModuleTool } from "./capability-module.js";
import { nativeModuleRunner } from "./module-runner.js";

test("siblingValues: other keys of an object keyed by the value, other strings of its array, the same field of other records", () => {
  const state = {
    reservations: { R1: { status: "active" }, R2: { status: "active" } },
    users: { u1: { reservations: ["R1", "R2", "R3"], payment_methods: [{ id: "card_1" }, { id: "card_2" }, { id: "gift_1" }] } },
  };
  assert.deepEqual(siblingValues(state, "R1"), ["R2", "R3"]);
  assert.deepEqual(siblingValues(state, "card_2"), ["card_1", "gift_1"]);
  assert.deepEqual(siblingValues(state, "nowhere"), []);
});

test("argumentVariants: entities of the same kind, enum values, numbers plus one, spread over the arguments first", () => {
  const tool: ModuleTool = {
    type: "function",
    function: { name: "cancel", description: "", parameters: { type: "object", properties: { order_id: { type: "string" }, reason: { type: "string", enum: ["no longer needed", "ordered by mistake"] }, count: { type: "integer" } } } },
  };
  const state = { orders: { "#W1": {}, "#W2": {}, "#W3": {} } };
  const variants = argumentVariants([tool], state, { name: "cancel", arguments: { order_id: "#W1", reason: "no longer needed", count: 2 } }, 10);
  assert.deepEqual(
    variants.map((variant) => variant.call.arguments),
    [
      { order_id: "#W2", reason: "no longer needed", count: 2 },
      { order_id: "#W1", reason: "ordered by mistake", count: 2 },
      { order_id: "#W1", reason: "no longer needed", count: 3 },
      { order_id: "#W3", reason: "no longer needed", count: 2 },
    ],
  );
  assert.equal(variants[0]?.description, 'cancel order_id "#W1" → "#W2"');
  assert.equal(argumentVariants([tool], state, { name: "cancel", arguments: { order_id: "#W1" } }, 1).length, 1);
});

test("an honest verifier fails every adversarial play; each play changes the final state", async () => {
  for (const module of [preconditionVerification, toolCallingPrecision]) {
    const runner = nativeModuleRunner(module);
    let played = 0;
    for (let seed = 0; seed < 10; seed += 1) {
      const replay = await replayGroundTruth(runner, await runner.generate(seed));
      const groundTruthFinal = JSON.stringify(replay.states.at(-1));
      for (const probe of [await changedArgumentInput(runner, replay), await oneExtraWriteInput(runner, replay), await everyWriteInput(runner, replay)]) {
        if (probe === null) continue;
        played += 1;
        assert.notEqual(JSON.stringify(probe.input.finalState), groundTruthFinal, probe.description);
        assert.equal((await runner.verify(probe.input)).success, false, `${module.capability} seed ${seed}: ${probe.description}`);
      }
    }
    assert.ok(played >= 10, `${module.capability}: ${played} plays`);
  }
});
