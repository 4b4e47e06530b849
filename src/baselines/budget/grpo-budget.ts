/**
 * Charges a rollout budget from `runGrpo`'s `onIteration` callback: each iteration's episodes are charged as training;
 * when the next iteration's first round of G × K episodes no longer fits, the returned signal aborts, so runGrpo stops
 * before sampling it (it checks the signal at the top of every iteration), and `episodesAllowed` (runGrpo's option of
 * that name) stops dynamic sampling's extra rounds that would not fit.
 */
import type { GrpoIterationMetrics } from "../../training/grpo-types.js";
import type { BudgetCategory, RolloutBudget } from "./rollout-budget.js";

export interface GrpoBudgetOptions {
  budget: RolloutBudget;
  /** Episodes of an iteration's first round, G × K (runGrpo's groups × samples). */
  episodesPerIteration: number;
  /** [training] */
  category?: BudgetCategory;
  /** Aborting it also stops runGrpo (e.g. the caller's own cancel). */
  signal?: AbortSignal;
  /** Called after the charge, with the iteration's metrics. */
  onIteration?: (metrics: GrpoIterationMetrics) => void;
}

/** The `onIteration` and `signal` to pass to runGrpo. */
export interface GrpoBudgetHooks {
  onIteration: (metrics: GrpoIterationMetrics) => void;
  signal: AbortSignal;
  /** Whether the budget (not the caller) stopped training. */
  exhausted: () => boolean;
  /** What the budget has left for the iteration being sampled (runGrpo's `episodesAllowed`). */
  episodesAllowed: () => number;
}

/** Hooks that charge `budget` per iteration and stop runGrpo once another iteration would not fit. */
export function grpoBudgetHooks(options: GrpoBudgetOptions): GrpoBudgetHooks {
  const { budget, episodesPerIteration } = options;
  const category = options.category ?? "training";
  const controller = new AbortController();
  let exhausted = false;
  const stopIfSpent = () => {
    if (budget.remaining() < episodesPerIteration && !controller.signal.aborted) {
      exhausted = true;
      controller.abort(new Error(`rollout budget spent: ${budget.remaining()} episodes left, an iteration needs ${episodesPerIteration}`));
    }
  };
  stopIfSpent();
  return {
    onIteration(metrics) {
      budget.charge(category, metrics.episodes);
      stopIfSpent();
      options.onIteration?.(metrics);
    },
    signal: options.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, options.signal]),
    exhausted: () => exhausted,
    episodesAllowed: () => budget.remaining(),
  };
}

/** Iterations of G × K episodes that fit in `episodes`. */
export function iterationsWithin(episodes: number, groups: number, samples: number): number {
  return Math.floor(episodes / (groups * samples));
}
