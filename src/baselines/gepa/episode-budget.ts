/** GEPA's budget in evaluated episodes: every instance evaluated (minibatch or validation) costs one. */
import { BudgetExceededError } from "./budget-exceeded-error.js";
import { InvalidBudgetError } from "./invalid-budget-error.js";

export class EpisodeBudget {
  #used = 0;

  constructor(readonly total: number) {
    if (!Number.isInteger(total) || total < 0) throw new InvalidBudgetError(total);
  }

  /** Episodes evaluated so far. */
  get used(): number {
    return this.#used;
  }

  get remaining(): number {
    return this.total - this.#used;
  }

  /** Whether `episodes` more evaluations fit. */
  allows(episodes: number): boolean {
    return episodes <= this.remaining;
  }

  /** Counts `episodes` evaluations; refuses (throws) any that would go past the total. */
  charge(episodes: number): void {
    if (!this.allows(episodes)) throw new BudgetExceededError(episodes, this.remaining);
    this.#used += episodes;
  }
}
