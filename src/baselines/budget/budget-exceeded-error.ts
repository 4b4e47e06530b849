import { TraceError } from "../../spec/trace-error.js";

/** A charge that would take a rollout budget past its limit. */
export class BudgetExceededError extends TraceError {
  override readonly name = "BudgetExceededError";
  constructor(
    /** The budget category charged (`selection`, `training`, `restored`); not `category`, which `TraceError` uses. */
    readonly budgetCategory: string,
    readonly requested: number,
    readonly spent: number,
    readonly limit: number,
  ) {
    super(`charging ${requested} ${budgetCategory} episodes would exceed the rollout budget: ${spent} of ${limit} spent, ${limit - spent} left`, { category: "usage" });
  }
}
