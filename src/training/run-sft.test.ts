import assert from "node:assert/strict";
import { test } from "node:test";
import type { TrainerClient } from "../worker/trainer-client.js";
import type { Datum } from "../worker/trainer-types.js";
import { runSft, scheduledLearningRate } from "./run-sft.js";

test("the schedule warms up linearly, then decays by a cosine to the floor at the last step", () => {
  const schedule = { warmupSteps: 4, decay: "cosine" as const, floor: 0.1 };
  const rates = Array.from({ length: 14 }, (_, step) => scheduledLearningRate(1, step, 14, schedule));
  assert.deepEqual(rates.slice(0, 4).map((rate) => Number(rate.toFixed(6))), [0.2, 0.4, 0.6, 0.8]);
  assert.equal(rates[4], 1);
  assert.ok(Math.abs(rates[13]! - 0.1) < 1e-12, `last ${rates[13]}`);
  for (let step = 5; step < 14; step += 1) assert.ok(rates[step]! < rates[step - 1]!, `step ${step}: ${rates[step]} after ${rates[step - 1]}`);
  assert.ok(Math.abs(rates[8]! - (0.1 + 0.45 * (1 + Math.cos((Math.PI * 4) / 9)))) < 1e-12, `step 8: ${rates[8]}`);
  assert.equal(scheduledLearningRate(2, 9, 10, { warmupSteps: 0, decay: "constant", floor: 0.1 }), 2);
});

test("runSft asks the schedule for each step's rate by its index, counted from firstStep", async () => {
  const asked: number[] = [];
  const trainer = {
    forwardBackward: () => Promise.resolve({ loss: 1 }),
    optimStep: ({ learningRate }: { learningRate: number }) => {
      asked.push(learningRate);
      return Promise.resolve({ step: asked.length, gradNorm: 0 });
    },
  } as unknown as TrainerClient;
  const datum: Datum = { tokens: [1, 2], targetTokens: [2, 3], weights: [1, 1] };
  const steps = await runSft({ trainer, adapter: "a", datums: [datum, datum, datum], epochs: 2, batchSize: 2, learningRate: (step) => step / 100, firstStep: 10 });
  assert.equal(steps.length, 4);
  assert.deepEqual(asked, [0.1, 0.11, 0.12, 0.13]);
});
