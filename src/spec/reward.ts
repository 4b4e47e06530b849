/** Reward information: a scalar reward, a success label and a named breakdown. */

export interface RewardInfo {
  /** Reward in [0, 1]. */
  reward: number;
  /** Whether the episode counts as solved (τ²: reward is 1). */
  success: boolean;
  /** Named components whose product (or other documented combination) is the reward, e.g. `{DB: 1, COMMUNICATE: 0}`. */
  breakdown: Record<string, number>;
  /** Environment-specific details (checks, notes), JSON-serialisable. */
  details?: Record<string, unknown>;
}
