/**
 * The rollout budget ledger every method shares: episodes sampled for training, calibration or selection count against
 * the limit, by category; evaluation episodes are counted beside it and never limited. Serialises to JSON so that every
 * result records its budget.
 */
import { BudgetExceededError } from "./budget-exceeded-error.js";
import { InvalidEpisodeCountError } from "./invalid-episode-count-error.js";

/** What a budgeted episode was sampled for. */
export type BudgetCategory = "training" | "calibration" | "selection";

export const BUDGET_CATEGORIES: readonly BudgetCategory[] = ["training", "calibration", "selection"];

/** The ledger's state: `spent` is exactly the sum of `byCategory`; `remaining` = `limit` − `spent`. */
export interface BudgetSummary {
  limit: number;
  spent: number;
  remaining: number;
  byCategory: Record<BudgetCategory, number>;
  /** Evaluation episodes, outside the limit. */
  evaluation: number;
}

/** What a partial charge took: `charged` + `refused` = the episodes asked for. */
export interface PartialCharge {
  charged: number;
  refused: number;
}

export interface RolloutBudget {
  readonly limit: number;
  spent(): number;
  remaining(): number;
  /** Charges all `episodes` or throws `BudgetExceededError` (charging nothing). */
  charge(category: BudgetCategory, episodes: number): void;
  /** Charges as many of `episodes` as fit and reports the rest as refused. */
  chargePartial(category: BudgetCategory, episodes: number): PartialCharge;
  /** Counts evaluation episodes (never refused). */
  chargeEvaluation(episodes: number): void;
  summary(): BudgetSummary;
  toJSON(): BudgetSummary;
}

function count(what: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new InvalidEpisodeCountError(what, value);
  return value;
}

/** A fresh ledger with `limit` budgeted episodes, or one restored from a summary. */
export function createRolloutBudget(options: { limit: number } | BudgetSummary): RolloutBudget {
  const limit = count("limit", options.limit);
  const byCategory: Record<BudgetCategory, number> = { training: 0, calibration: 0, selection: 0 };
  let evaluation = 0;
  if ("byCategory" in options) {
    for (const category of BUDGET_CATEGORIES) byCategory[category] = count(`byCategory.${category}`, options.byCategory[category]);
    evaluation = count("evaluation", options.evaluation);
  }
  const spent = () => BUDGET_CATEGORIES.reduce((sum, category) => sum + byCategory[category], 0);
  if (spent() > limit) throw new BudgetExceededError("restored", spent(), 0, limit);
  const summary = (): BudgetSummary => ({ limit, spent: spent(), remaining: limit - spent(), byCategory: { ...byCategory }, evaluation });
  return {
    limit,
    spent,
    remaining: () => limit - spent(),
    charge(category, episodes) {
      count("episodes", episodes);
      if (spent() + episodes > limit) throw new BudgetExceededError(category, episodes, spent(), limit);
      byCategory[category] += episodes;
    },
    chargePartial(category, episodes) {
      count("episodes", episodes);
      const charged = Math.min(episodes, limit - spent());
      byCategory[category] += charged;
      return { charged, refused: episodes - charged };
    },
    chargeEvaluation(episodes) {
      evaluation += count("episodes", episodes);
    },
    summary,
    toJSON: summary,
  };
}
