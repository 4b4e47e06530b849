/**
 * Dynamic sampling (TRACE reference: DAPO-style re-collection in `train/train_grpo.py`): after a round of G groups,
 * sample another round while fewer than `minInformativeShare` × G of the groups sampled so far have reward variance and
 * extra rounds are left; groups without variance are dropped as always.
 */

/** Informative groups an iteration wants: ⌈share × G⌉ (float noise aside). */
export function informativeGroupsWanted(groups: number, share: number): number {
  return Math.ceil(share * groups - 1e-9);
}

/** The most episodes one iteration can sample: G × K per round, 1 + `extraRounds` rounds (what a rollout budget must allow per iteration). */
export function mostEpisodesPerIteration(groups: number, samples: number, extraRounds: number): number {
  return groups * samples * (1 + extraRounds);
}

/** Whether round `round` (0-based, just sampled) should be followed by another one. */
export function wantsAnotherRound(options: { informative: number; groups: number; share: number; round: number; extraRounds: number }): boolean {
  return options.round < options.extraRounds && options.informative < informativeGroupsWanted(options.groups, options.share);
}
