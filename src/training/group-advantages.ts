/** GRPO's group-relative advantages: each reward's distance from its group's mean, in units of the group's standard deviation. */

/** `(r − mean) / (std + epsilon)` per reward (population std); null when every reward is equal (no learning signal). */
export function groupAdvantages(rewards: readonly number[], epsilon = 1e-6): number[] | null {
  if (rewards.length === 0) return null;
  const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  const variance = rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / rewards.length;
  if (variance === 0) return null;
  const std = Math.sqrt(variance);
  return rewards.map((reward) => (reward - mean) / (std + epsilon));
}
