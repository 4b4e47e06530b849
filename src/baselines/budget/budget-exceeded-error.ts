/** A charge that would take a rollout budget past its limit. */
export class BudgetExceededError extends Error {
  override readonly name = "BudgetExceededError";
  constructor(
    readonly category: string,
    readonly requested: number,
    readonly spent: number,
    readonly limit: number,
  ) {
    super(`charging ${requested} ${category} episodes would exceed the rollout budget: ${spent} of ${limit} spent, ${limit - spent} left`);
  }
}
