/** A GEPA budget that is not a non-negative integer number of episodes. */
export class InvalidBudgetError extends Error {
  override readonly name = "InvalidBudgetError";
  constructor(readonly budget: number) {
    super(`GEPA budget must be a non-negative integer number of episodes, got ${budget}`);
  }
}
