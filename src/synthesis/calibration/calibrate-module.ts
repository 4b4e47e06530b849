/**
 * Calibration of a capability module on the base policy (TRACE reference code): many seeds × K sampled episodes
 * through the agent loop on the module-as-Environment. The module is in range when the mean reward and the success
 * rate are 0.2–0.6, the rewards' standard deviation is at least 0.05, groups whose K rewards are all 0 or all 1 are
 * each at most 20% of the seeds, constant groups (all K rewards equal: no GRPO signal) at most 50%, and informative
 * groups (within-group reward standard deviation at least the minimum) at least 50%.
 *
 * Beyond the reference, calibration can ask for evidence (`standardErrors`, the standard error being over seeds): a
 * level may be calibrated in rounds (`rounds`), another on the next seeds while the pooled mean reward or success rate
 * lies within that many standard errors of an edge of its window; and a level search leaves the module's initial level
 * only for a level whose mean is nearer the window by more than that many standard errors of the difference (paired
 * over the seeds both levels were calibrated on).
 *
 * Every episode samples with its own seed (`samplingSeedStart` + seed × K + trial), so a calibration run twice on the
 * same policy reads the same rewards and chooses the same level, and every level is read with the same random numbers.
 */
import type { ChatClient } from "../../models/chat-client.js";
import { createConcurrencyLimit } from "../../models/concurrency-limit.js";
import { runEpisode } from "../../rollout/agent-loop.js";
import type { SamplingOptions } from "../../rollout/agent-loop.js";
import { createModuleEnvironment, seedTaskId } from "../../envs/modules/module-environment.js";
import { createInstanceUser } from "../../rollout/instance-user.js";
import { atDifficulty, type ModuleRunner } from "../../envs/modules/module-runner.js";
import { TraceError } from "../../spec/trace-error.js";

/** The calibration window (all fractions in [0, 1]). */
export interface CalibrationTargets {
  minimumMeanReward: number;
  maximumMeanReward: number;
  minimumSuccessRate: number;
  maximumSuccessRate: number;
  /** Of all rewards (population standard deviation). */
  minimumRewardStd: number;
  maximumAllZeroFraction: number;
  maximumAllOneFraction: number;
  /** Groups whose rewards are all equal. */
  maximumConstantFraction: number;
  /** Groups whose reward standard deviation is at least `minimumRewardStd`. */
  minimumInformativeFraction: number;
}

/** The reference window: mean reward and success rate 0.2–0.6, sd ≥ 0.05, all-0 / all-1 groups ≤ 20% each, constant ≤ 50%, informative ≥ 50%. */
export const DEFAULT_CALIBRATION_TARGETS: CalibrationTargets = {
  minimumMeanReward: 0.2,
  maximumMeanReward: 0.6,
  minimumSuccessRate: 0.2,
  maximumSuccessRate: 0.6,
  minimumRewardStd: 0.05,
  maximumAllZeroFraction: 0.2,
  maximumAllOneFraction: 0.2,
  maximumConstantFraction: 0.5,
  minimumInformativeFraction: 0.5,
};

/** Options of `calibrateModule`. */
export interface CalibrationOptions {
  runner: ModuleRunner;
  /** The base policy (an OpenAI-compatible endpoint). */
  policy: ChatClient;
  /** Seeds, one group each (default 0…15). */
  seeds?: readonly number[];
  /** Episodes per seed, K (default 4). */
  samples?: number;
  /** Sampling (default temperature 1.0, as GRPO samples); its `seed` is replaced by each episode's own. */
  sampling?: SamplingOptions;
  /** Episode (seed s, trial k) samples with seed `samplingSeedStart` + s × samples + k (default 0). */
  samplingSeedStart?: number;
  /** Episodes in flight at once (default 8). */
  concurrency?: number;
  targets?: Partial<CalibrationTargets>;
  maxSteps?: number;
  /** Called after each episode with the episodes done and in all so far (progress; a further round adds to both). */
  onEpisode?: (done: number, total: number) => void;
  /** Most rounds of `seeds` × `samples` episodes, each on the next seeds (default 1, the reference's single reading). */
  rounds?: number;
  /**
   * How many standard errors make a difference real (default 0, point estimates as the reference): another round runs
   * while a reading is within this many of a window edge, and a level other than the initial one is chosen only when
   * its mean is nearer the window by more than this many standard errors of the difference, paired over seeds (or it passes).
   */
  standardErrors?: number;
  /**
   * Whether a level whose mean reward and success rate are inside the window but whose groups are all 0 too often
   * (or all 1 too often) steers the level search easier (or harder), as a mean out of the window does (default
   * false: the search stops there, as it always has).
   */
  steerByExtremeGroups?: boolean;
}

/** Calibration result: the statistics, each seed's rewards, and why it is out of range (if it is). */
export interface CalibrationReport {
  passed: boolean;
  meanReward: number;
  /** Episodes with reward 1. */
  successRate: number;
  rewardStd: number;
  allZeroFraction: number;
  allOneFraction: number;
  constantFraction: number;
  informativeFraction: number;
  seeds: number;
  samples: number;
  targets: CalibrationTargets;
  groups: { seed: number; rewards: number[] }[];
  /** Episodes that ended in an agent or user error (they count as reward 0). */
  erroredEpisodes: number;
  /** Standard error of the mean reward over seeds (the sample standard deviation of the seeds' means / √seeds). */
  meanRewardStandardError: number;
  /** Rounds run (more than one when a reading lay near a window edge). */
  rounds: number;
  problems: string[];
  /** For a module with difficulty levels: the level these statistics are of, and every level tried on the way. */
  difficulty?: { level: number; levels: number; tried: { level: number; meanReward: number; meanRewardStandardError: number; passed: boolean }[] };
}

/**
 * Runs seeds × samples episodes and checks them against the targets; with `rounds` above 1, runs further rounds on the
 * next seeds (after the largest seed so far) while the pooled reading is near an edge of the window.
 */
export async function calibrateModule(options: CalibrationOptions): Promise<CalibrationReport> {
  const firstSeeds = options.seeds ?? Array.from({ length: 16 }, (_, index) => index);
  const samples = options.samples ?? 4;
  const targets = { ...DEFAULT_CALIBRATION_TARGETS, ...options.targets };
  const rounds = options.rounds ?? 1;
  const standardErrors = options.standardErrors ?? 0;
  const samplingSeedStart = options.samplingSeedStart ?? 0;
  if (!Number.isSafeInteger(samplingSeedStart) || samplingSeedStart < 0) throw new CalibrationOptionError("samplingSeedStart", samplingSeedStart, "an integer ≥ 0");
  if (!Number.isInteger(rounds) || rounds < 1) throw new CalibrationOptionError("rounds", rounds, "a positive integer");
  if (!(standardErrors >= 0)) throw new CalibrationOptionError("standardErrors", standardErrors, "a number ≥ 0");
  const limit = createConcurrencyLimit(options.concurrency ?? 8);
  const groups: { seed: number; rewards: number[] }[] = [];
  let erroredEpisodes = 0;
  let done = 0;
  let total = 0;
  let seeds = firstSeeds;
  for (let round = 1; ; round += 1) {
    total += seeds.length * samples;
    const environment = await createModuleEnvironment({ runner: options.runner, seeds });
    const roundGroups = await Promise.all(
      seeds.map(async (seed) => {
        const task = environment.task(seedTaskId(seed));
        const rewards = await Promise.all(
          Array.from({ length: samples }, (_, trial) =>
            limit.run(async () => {
              const result = await runEpisode({
                environment,
                task,
                policy: options.policy,
                user: createInstanceUser(environment.instance(task)),
                sampling: { ...(options.sampling ?? { temperature: 1 }), seed: samplingSeedStart + seed * samples + trial },
                trial,
                ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
              });
              if (result.error !== undefined) erroredEpisodes += 1;
              options.onEpisode?.((done += 1), total);
              return result.trajectory.reward?.reward ?? 0;
            }),
          ),
        );
        return { seed, rewards };
      }),
    );
    groups.push(...roundGroups);
    const report = { ...summarizeCalibration(groups, samples, targets, erroredEpisodes), rounds: round };
    if (round === rounds || !nearWindowEdge(report, standardErrors)) return report;
    const next = Math.max(...groups.map((group) => group.seed)) + 1;
    seeds = firstSeeds.map((_, index) => next + index);
  }
}

/**
 * Whether a reading's mean reward or success rate lies within `standardErrors` standard errors over seeds of an edge
 * of its window (where one more round could change which side of the edge it is on).
 */
export function nearWindowEdge(report: CalibrationReport, standardErrors: number): boolean {
  const successes = report.groups.map((group) => ({ seed: group.seed, rewards: group.rewards.map((reward) => (reward >= 1 ? 1 : 0)) }));
  const near = (value: number, standardError: number, edges: number[]) => edges.some((edge) => Math.abs(value - edge) < standardErrors * standardError);
  const { targets } = report;
  return (
    near(report.meanReward, report.meanRewardStandardError, [targets.minimumMeanReward, targets.maximumMeanReward]) ||
    near(report.successRate, seedStandardError(successes), [targets.minimumSuccessRate, targets.maximumSuccessRate])
  );
}

/** The standard error of the mean over seeds: the sample standard deviation of the seeds' mean rewards / √seeds (0 for one seed). */
export function seedStandardError(groups: readonly { rewards: readonly number[] }[]): number {
  if (groups.length < 2) return 0;
  const means = groups.map((group) => mean(group.rewards));
  const center = mean(means);
  const variance = means.reduce((sum, value) => sum + (value - center) ** 2, 0) / (means.length - 1);
  return Math.sqrt(variance / means.length);
}

/** A calibration option out of its range. */
export class CalibrationOptionError extends TraceError {
  override readonly name = "CalibrationOptionError";
  constructor(
    readonly option: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`calibration option ${option} must be ${expected}, got ${JSON.stringify(value)}`, { category: "usage" });
  }
}

/**
 * Calibration that sets a module's difficulty (a module without levels is calibrated as it is): from the module's
 * initial level, one level harder while the base policy does too well (mean reward or success rate above the window),
 * one easier while it does too badly (with `steerByExtremeGroups`, also while its mean is in the window but too many
 * groups are all 0, and harder while too many are all 1), until a level passes, the direction turns back, or the levels run out. The
 * result is the first passing level's report, else the report of the level whose mean reward is nearest the window —
 * but with `standardErrors` above 0 the initial level stays unless that level is nearer by more than `standardErrors`
 * standard errors of the difference, taken seed by seed (`pairedStandardError`): a level whose reward does not move
 * with it, or moves within the noise, is no reason to leave the distribution the module starts from. Its
 * `difficulty` lists every level tried.
 */
export async function calibrateDifficulty(options: CalibrationOptions): Promise<CalibrationReport> {
  const difficulty = options.runner.difficulty;
  if (difficulty === undefined) return calibrateModule(options);
  const targets = { ...DEFAULT_CALIBRATION_TARGETS, ...options.targets };
  const reports = new Map<number, CalibrationReport>();
  let level = difficulty.initial;
  for (;;) {
    const report = await calibrateModule({ ...options, runner: atDifficulty(options.runner, level) });
    reports.set(level, report);
    if (report.passed) break;
    const tooEasy = report.meanReward > targets.maximumMeanReward || report.successRate > targets.maximumSuccessRate;
    const tooHard = report.meanReward < targets.minimumMeanReward || report.successRate < targets.minimumSuccessRate;
    let next = tooEasy && !tooHard ? level + 1 : tooHard && !tooEasy ? level - 1 : undefined;
    if (options.steerByExtremeGroups === true && !tooEasy && !tooHard) {
      const manyAllZero = report.allZeroFraction > targets.maximumAllZeroFraction;
      const manyAllOne = report.allOneFraction > targets.maximumAllOneFraction;
      next = manyAllZero && !manyAllOne ? level - 1 : manyAllOne && !manyAllZero ? level + 1 : undefined;
    }
    if (next === undefined || next < 0 || next >= difficulty.levels || reports.has(next)) break;
    level = next;
  }
  const tried = [...reports].map(([tried, report]) => ({ level: tried, meanReward: report.meanReward, meanRewardStandardError: report.meanRewardStandardError, passed: report.passed }));
  const [chosen, report] = chooseLevel([...reports], difficulty.initial, options.standardErrors ?? 0);
  return { ...report, difficulty: { level: chosen, levels: difficulty.levels, tried } };
}

/**
 * The level calibration keeps: a passing level first; else the level nearest the window (ties keep the level tried
 * first), unless the initial level is within `standardErrors` paired standard errors of the difference as near.
 */
function chooseLevel(reports: [number, CalibrationReport][], initial: number, standardErrors: number): [number, CalibrationReport] {
  const passing = reports.find(([, report]) => report.passed);
  if (passing !== undefined) return passing;
  const nearest = reports.reduce((best, candidate) => (distanceToWindow(candidate[1]) < distanceToWindow(best[1]) ? candidate : best));
  const start = reports.find(([level]) => level === initial);
  if (start === undefined || standardErrors === 0) return nearest;
  return distanceToWindow(start[1]) - distanceToWindow(nearest[1]) > standardErrors * pairedStandardError(start[1].groups, nearest[1].groups) ? nearest : start;
}

/**
 * The standard error of the difference between two readings on the same seeds, taken seed by seed: the sample
 * standard deviation of the per-seed differences of the seeds' mean rewards, over √(seeds both have). Every level is
 * calibrated on the same seeds and a seed hard at one level is hard at the next, so this is far smaller than the two
 * readings' standard errors combined as if independent. Without two shared seeds it falls back to that combination.
 */
export function pairedStandardError(first: readonly { seed: number; rewards: readonly number[] }[], second: readonly { seed: number; rewards: readonly number[] }[]): number {
  const secondMeans = new Map(second.map((group) => [group.seed, mean(group.rewards)]));
  const differences = first.flatMap((group) => {
    const other = secondMeans.get(group.seed);
    return other === undefined ? [] : [mean(group.rewards) - other];
  });
  if (differences.length < 2) return Math.hypot(seedStandardError(first), seedStandardError(second));
  return seedStandardError(differences.map((difference) => ({ rewards: [difference] })));
}

/** How far a report's mean reward lies outside its window (0 inside it). */
export function distanceToWindow(report: CalibrationReport): number {
  const { minimumMeanReward, maximumMeanReward } = report.targets;
  return Math.max(0, minimumMeanReward - report.meanReward, report.meanReward - maximumMeanReward);
}

/** The statistics of reward groups against the targets (exported for tests and for reports built elsewhere). */
export function summarizeCalibration(groups: { seed: number; rewards: number[] }[], samples: number, targets: CalibrationTargets, erroredEpisodes = 0): CalibrationReport {
  const all = groups.flatMap((group) => group.rewards);
  const meanReward = mean(all);
  const successRate = mean(all.map((reward) => (reward >= 1 ? 1 : 0)));
  const rewardStd = standardDeviation(all);
  const fraction = (predicate: (rewards: number[]) => boolean) => (groups.length === 0 ? 0 : groups.filter((group) => predicate(group.rewards)).length / groups.length);
  const allZeroFraction = fraction((rewards) => rewards.every((reward) => reward === 0));
  const allOneFraction = fraction((rewards) => rewards.every((reward) => reward === 1));
  const constantFraction = fraction((rewards) => rewards.every((reward) => reward === rewards[0]));
  const informativeFraction = fraction((rewards) => rewards.length > 1 && standardDeviation(rewards) >= targets.minimumRewardStd);
  const problems: string[] = [];
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  if (meanReward < targets.minimumMeanReward) problems.push(`mean reward ${meanReward.toFixed(3)} is below ${targets.minimumMeanReward}: too hard for the base policy`);
  if (meanReward > targets.maximumMeanReward) problems.push(`mean reward ${meanReward.toFixed(3)} is above ${targets.maximumMeanReward}: too easy for the base policy`);
  if (successRate < targets.minimumSuccessRate) problems.push(`success rate ${percent(successRate)} is below ${percent(targets.minimumSuccessRate)}`);
  if (successRate > targets.maximumSuccessRate) problems.push(`success rate ${percent(successRate)} is above ${percent(targets.maximumSuccessRate)}`);
  if (rewardStd < targets.minimumRewardStd) problems.push(`reward standard deviation ${rewardStd.toFixed(3)} is below ${targets.minimumRewardStd}`);
  if (allZeroFraction > targets.maximumAllZeroFraction) problems.push(`${percent(allZeroFraction)} of seeds have all-0 groups (allowed ≤ ${percent(targets.maximumAllZeroFraction)})`);
  if (allOneFraction > targets.maximumAllOneFraction) problems.push(`${percent(allOneFraction)} of seeds have all-1 groups (allowed ≤ ${percent(targets.maximumAllOneFraction)})`);
  if (constantFraction > targets.maximumConstantFraction) problems.push(`${percent(constantFraction)} of seeds have constant groups (allowed ≤ ${percent(targets.maximumConstantFraction)})`);
  if (informativeFraction < targets.minimumInformativeFraction) problems.push(`${percent(informativeFraction)} of seeds have informative groups (needed ≥ ${percent(targets.minimumInformativeFraction)})`);
  return { passed: problems.length === 0, meanReward, successRate, rewardStd, allZeroFraction, allOneFraction, constantFraction, informativeFraction, seeds: groups.length, samples, targets, groups, erroredEpisodes, meanRewardStandardError: seedStandardError(groups), rounds: 1, problems };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Population standard deviation. */
function standardDeviation(values: readonly number[]): number {
  const center = mean(values);
  return Math.sqrt(mean(values.map((value) => (value - center) ** 2)));
}

/** A short text form of the report. */
export function formatCalibrationReport(report: CalibrationReport): string {
  const head = `${report.passed ? "PASS" : "FAIL"} calibration: mean reward ${report.meanReward.toFixed(3)} ± ${report.meanRewardStandardError.toFixed(3)}, success ${(report.successRate * 100).toFixed(1)}%, sd ${report.rewardStd.toFixed(3)}, constant groups ${(report.constantFraction * 100).toFixed(1)}%, informative ${(report.informativeFraction * 100).toFixed(1)}%, all-0 groups ${(report.allZeroFraction * 100).toFixed(1)}%, all-1 groups ${(report.allOneFraction * 100).toFixed(1)}% (${report.seeds} seeds × ${report.samples} samples${report.rounds > 1 ? ` in ${report.rounds} rounds` : ""}${report.erroredEpisodes > 0 ? `, ${report.erroredEpisodes} errored episodes` : ""})`;
  const levels = report.difficulty;
  const difficulty =
    levels === undefined
      ? []
      : [`     difficulty level ${levels.level} of 0–${levels.levels - 1} (tried ${levels.tried.map((tried) => `${tried.level}: mean ${tried.meanReward.toFixed(3)}${tried.passed ? " PASS" : ""}`).join("; ")})`];
  return [head, ...difficulty, ...report.problems.map((problem) => `     ${problem}`)].join("\n");
}
