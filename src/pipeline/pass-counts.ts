/**
 * The arithmetic of evaluation results, shared by the evaluate stage and `trace compare`: an environment's score from
 * its finished episodes, pass counts summed over domains, and the pass rate.
 */
import type { PassCount } from "../run/evaluation-results.js";
import type { EpisodeRecord } from "../store/trajectory-store.js";

/** Passed / total finished episodes and their mean reward. */
export interface EvaluationScore {
  passed: number;
  total: number;
  meanReward: number;
  /** Pass counts per kind of task, when the target names kinds (`TargetDomain.taskGroups`; a task may count under several). */
  groups?: Record<string, PassCount>;
}

/** The score of finished episodes on the given tasks: an episode passes when it succeeded; a missing reward counts 0. */
export function scoreEpisodes(episodes: readonly Pick<EpisodeRecord, "taskId" | "success" | "reward">[], taskIds: ReadonlySet<string>): EvaluationScore {
  const counted = episodes.filter((episode) => taskIds.has(episode.taskId));
  return {
    passed: counted.filter((episode) => episode.success === true).length,
    total: counted.length,
    meanReward: counted.length === 0 ? 0 : counted.reduce((sum, episode) => sum + (episode.reward ?? 0), 0) / counted.length,
  };
}

/**
 * Pass counts of finished episodes per kind of task (`groupOf`: task id → the kinds it counts under), kinds in sorted
 * order; other tasks are left out.
 */
export function passCountsByGroup(episodes: readonly Pick<EpisodeRecord, "taskId" | "success">[], groupOf: ReadonlyMap<string, readonly string[]>): Record<string, PassCount> {
  const counts: Record<string, PassCount> = {};
  for (const group of [...new Set([...groupOf.values()].flat())].sort()) counts[group] = { passed: 0, total: 0 };
  for (const episode of episodes) {
    for (const group of groupOf.get(episode.taskId) ?? []) {
      counts[group]!.total += 1;
      if (episode.success === true) counts[group]!.passed += 1;
    }
  }
  return counts;
}

/** Solved and attempted episodes added up (τ² Appendix C's overall: solved / tasks over every domain). */
export function sumPassCounts(counts: readonly PassCount[]): PassCount {
  return { passed: counts.reduce((sum, count) => sum + count.passed, 0), total: counts.reduce((sum, count) => sum + count.total, 0) };
}

/** passed / total; 0 when nothing was attempted. */
export function passRate(count: PassCount): number {
  return count.total === 0 ? 0 : count.passed / count.total;
}
