/** An evaluation that would spend more episodes than the budget has left. */
export class BudgetExceededError extends Error {
  override readonly name = "BudgetExceededError";
  constructor(
    readonly requested: number,
    readonly remaining: number,
  ) {
    super(`GEPA budget: ${requested} episodes requested, ${remaining} left`);
  }
}
