/** GRPO's group step: each group's rewards become advantages; groups whose rewards are all equal are dropped and counted. */
import { groupAdvantages } from "./group-advantages.js";

/** A group that kept its signal: the index of the group and one advantage per member. */
export interface KeptGroup {
  group: number;
  advantages: number[];
}

export interface GroupFilterResult {
  kept: KeptGroup[];
  /** Indices of groups with identical rewards (no learning signal). */
  dropped: number[];
}

/** Advantages of every group with reward variance; the rest dropped. */
export function filterGroups(groups: readonly (readonly number[])[], epsilon?: number): GroupFilterResult {
  const kept: KeptGroup[] = [];
  const dropped: number[] = [];
  groups.forEach((rewards, group) => {
    const advantages = groupAdvantages(rewards, epsilon);
    if (advantages === null) dropped.push(group);
    else kept.push({ group, advantages });
  });
  return { kept, dropped };
}
