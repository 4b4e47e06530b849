/**
 * Fitting trajectories into a model's context: a conservative token estimate (3 characters a token) and greedy
 * batching of rendered trajectories under a token budget and a count limit. A trajectory too long for the budget on
 * its own is cut in the middle to fit it.
 */
import { shorten, type RenderedTrajectory } from "../rollout/render-trajectory.js";

/** Characters per token assumed by the estimate; real tokenizers give 3.5–4.5 on English and JSON. */
export const CHARACTERS_PER_TOKEN = 3;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARACTERS_PER_TOKEN);
}

/** Splits trajectories, in order, into batches of at most `maxItems` whose texts fit `budgetTokens` together. */
export function batchTrajectories<T extends RenderedTrajectory>(trajectories: readonly T[], budgetTokens: number, maxItems: number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const trajectory of trajectories) {
    let item = trajectory;
    let cost = estimateTokens(item.text) + 1;
    if (cost > budgetTokens) {
      item = { ...trajectory, text: shorten(trajectory.text, Math.max(200, (budgetTokens - 1) * CHARACTERS_PER_TOKEN - 80)) };
      cost = estimateTokens(item.text) + 1;
    }
    if (current.length > 0 && (used + cost > budgetTokens || current.length >= maxItems)) {
      batches.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += cost;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
