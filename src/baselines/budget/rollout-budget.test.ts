import assert from "node:assert/strict";
import { test } from "node:test";
import { BudgetExceededError } from "./budget-exceeded-error.js";
import { InvalidEpisodeCountError } from "./invalid-episode-count-error.js";
import { BUDGET_CATEGORIES, createRolloutBudget } from "./rollout-budget.js";

test("the summary adds up exactly: categories sum to spent, spent + remaining = limit; evaluation is apart", () => {
  const budget = createRolloutBudget({ limit: 1000 });
  budget.charge("calibration", 64);
  budget.charge("training", 512);
  budget.charge("selection", 37);
  budget.charge("training", 128);
  budget.chargeEvaluation(300);
  const summary = budget.summary();
  assert.deepEqual(summary, { limit: 1000, spent: 741, remaining: 259, byCategory: { training: 640, calibration: 64, selection: 37 }, evaluation: 300 });
  assert.equal(BUDGET_CATEGORIES.reduce((sum, category) => sum + summary.byCategory[category], 0), summary.spent);
});

test("a charge past the limit is refused with the numbers and charges nothing; the limit itself is reachable", () => {
  const budget = createRolloutBudget({ limit: 100 });
  budget.charge("training", 90);
  assert.throws(
    () => budget.charge("selection", 11),
    (error: unknown) => error instanceof BudgetExceededError && error.budgetCategory === "selection" && error.requested === 11 && error.spent === 90 && error.limit === 100,
  );
  assert.equal(budget.spent(), 90);
  budget.charge("selection", 10);
  assert.equal(budget.remaining(), 0);
  assert.throws(() => budget.charge("training", 1), BudgetExceededError);
  budget.chargeEvaluation(50);
  assert.equal(budget.summary().evaluation, 50);
});

test("a partial charge takes what fits and reports the rest", () => {
  const budget = createRolloutBudget({ limit: 10 });
  assert.deepEqual(budget.chargePartial("training", 7), { charged: 7, refused: 0 });
  assert.deepEqual(budget.chargePartial("calibration", 7), { charged: 3, refused: 4 });
  assert.deepEqual(budget.summary().byCategory, { training: 7, calibration: 3, selection: 0 });
});

test("counts must be non-negative integers", () => {
  const budget = createRolloutBudget({ limit: 10 });
  assert.throws(() => budget.charge("training", -1), (error: unknown) => error instanceof InvalidEpisodeCountError && error.value === -1);
  assert.throws(() => budget.charge("training", 1.5), InvalidEpisodeCountError);
  assert.throws(() => createRolloutBudget({ limit: Number.NaN }), InvalidEpisodeCountError);
});

test("JSON round trip restores the ledger", () => {
  const budget = createRolloutBudget({ limit: 50 });
  budget.charge("training", 20);
  budget.chargeEvaluation(5);
  const restored = createRolloutBudget(JSON.parse(JSON.stringify(budget)) as ReturnType<typeof budget.summary>);
  assert.deepEqual(restored.summary(), budget.summary());
  restored.charge("selection", 30);
  assert.throws(() => restored.charge("selection", 1), BudgetExceededError);
});
