/**
 * GEPA's acceptance rules (gepa `strategies/acceptance.py` `StrictImprovementAcceptance`, the default; `core/engine.py`
 * for merges): a mutated candidate is kept only when its score sum on the parent's minibatch is strictly greater than
 * the parent's; a merged candidate when its sum on the merge subsample is at least the better parent's sum there.
 */

function sum(scores: readonly number[]): number {
  return scores.reduce((total, score) => total + score, 0);
}

/** Reflective mutation: `sum(child) > sum(parent)` on the same minibatch. */
export function acceptsMutation(parentScores: readonly number[], childScores: readonly number[]): boolean {
  return sum(childScores) > sum(parentScores);
}

/** Merge: `sum(merged) >= max(sum(first parent), sum(second parent))` on the merge subsample. */
export function acceptsMerge(parentScores: readonly (readonly number[])[], mergedScores: readonly number[]): boolean {
  return sum(mergedScores) >= Math.max(...parentScores.map(sum));
}
