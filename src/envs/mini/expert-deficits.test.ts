import assert from "node:assert/strict";
import { test } from "node:test";
import { ExpertDeficitRateError } from "./expert-deficit-rate-error.js";
import { DEFAULT_EXPERT_DEFICITS, drawExpertDeficits, resolveExpertDeficits } from "./expert-deficits.js";

test("rates default to one half each and must be probabilities", () => {
  assert.deepEqual(resolveExpertDeficits(), { skipPreconditionCheck: 0.5, wrongPaymentMethod: 0.5, stopAfterFirstChange: 0.5 });
  assert.deepEqual(resolveExpertDeficits({ wrongPaymentMethod: 1 }), { ...DEFAULT_EXPERT_DEFICITS, wrongPaymentMethod: 1 });
  assert.throws(() => resolveExpertDeficits({ stopAfterFirstChange: 1.5 }), (error: ExpertDeficitRateError) => error instanceof ExpertDeficitRateError && error.rate === 1.5 && error.deficit === "stopAfterFirstChange");
  assert.throws(() => resolveExpertDeficits({ skipPreconditionCheck: Number.NaN }), ExpertDeficitRateError);
});

test("draws are reproducible, vary with the seed, the request seed and the request, and are independent", () => {
  const deficits = resolveExpertDeficits();
  const draw = (seed: number, request: string, requestSeed?: number) => drawExpertDeficits({ deficits, seed, request, requestSeed });
  assert.deepEqual(draw(1, "I am u17."), draw(1, "I am u17."));
  const requests = Array.from({ length: 400 }, (_, index) => `I am u${index}.`);
  const counts = { skipPreconditionCheck: 0, wrongPaymentMethod: 0, stopAfterFirstChange: 0, both: 0 };
  for (const request of requests) {
    const active = draw(0, request);
    for (const name of ["skipPreconditionCheck", "wrongPaymentMethod", "stopAfterFirstChange"] as const) if (active[name]) counts[name] += 1;
    if (active.skipPreconditionCheck && active.wrongPaymentMethod) counts.both += 1;
  }
  for (const count of [counts.skipPreconditionCheck, counts.wrongPaymentMethod, counts.stopAfterFirstChange]) assert.ok(count > 160 && count < 240, JSON.stringify(counts));
  assert.ok(counts.both > 60 && counts.both < 140, JSON.stringify(counts));
  const differs = (other: (request: string) => object) => requests.some((request) => JSON.stringify(other(request)) !== JSON.stringify(draw(0, request)));
  assert.ok(differs((request) => draw(1, request)));
  assert.ok(differs((request) => draw(0, request, 5)));
  assert.deepEqual(drawExpertDeficits({ deficits: { skipPreconditionCheck: 1, wrongPaymentMethod: 0, stopAfterFirstChange: 1 }, seed: 3, request: "x" }), {
    skipPreconditionCheck: true,
    wrongPaymentMethod: false,
    stopAfterFirstChange: true,
  });
});
