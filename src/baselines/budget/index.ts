/** Rollout budget accounting shared by every baseline and TRACE itself. */
export { BudgetExceededError } from "./budget-exceeded-error.js";
export { InvalidEpisodeCountError } from "./invalid-episode-count-error.js";
export { BUDGET_CATEGORIES, createRolloutBudget, type BudgetCategory, type BudgetSummary, type PartialCharge, type RolloutBudget } from "./rollout-budget.js";
export { grpoBudgetHooks, iterationsWithin, type GrpoBudgetHooks, type GrpoBudgetOptions } from "./grpo-budget.js";
