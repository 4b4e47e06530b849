/**
 * The gate against verdicts that change with the module instance's age: module state survives between calls in one
 * sandbox instance (a verifier can count its calls and turn lax after the 400th). After the other gates, the instance
 * keeps being called — earlier plays re-generated, re-played and re-verified (compared with what they gave the first
 * time), interleaved with the do-nothing policy on seeds never seen before — until the verifier has served at least
 * `stabilityCalls` calls; then a few new seeds are played by every policy in this old instance and in a fresh one
 * (no state from earlier calls), and must give identical results. New inputs matter as much as repeated ones: a
 * module that memoizes its verdicts answers a repeated input as it did the first time.
 */
import type { Json, ModuleInstance, Verdict, VerifierInput } from "../../envs/modules/capability-module.js";
import { changedArgumentInput, groundTruthInput, oneExtraWriteInput, replayGroundTruth } from "../../envs/modules/adversarial-policies.js";
import { DO_NOTHING_REPLY } from "../../envs/modules/module-policies.js";
import type { ModuleRunner } from "../../envs/modules/module-runner.js";
import { createModuleSdk } from "../../envs/modules/module-sdk.js";
import { checkVerdict } from "../../envs/modules/module-verdict.js";
import { replayCalls } from "../../envs/modules/verifier-input.js";
import type { GateResult } from "./gate-result.js";
import type { GuardedRunner } from "./guarded-runner.js";
import { guardRunner } from "./guarded-runner.js";
import { describeModuleError } from "./module-text.js";

/** A verified play of an earlier gate: the seed, the policy, the verifier's input and its verdict (canonical JSON). */
export interface PlayRecord {
  seed: number;
  policy: string;
  input: VerifierInput;
  verdict: string;
}

/** A module loaded afresh, with `dispose` when it holds a sandbox. */
export type FreshRunner = ModuleRunner & { dispose?(): Promise<void> };

/** What the stability gate needs. */
export interface StabilityOptions {
  records: readonly PlayRecord[];
  /** The first seed no earlier gate played; the gate's new seeds count up from it. */
  firstNewSeed: number;
  /** Verifier calls the instance must have served before the checks end. */
  stabilityCalls: number;
  /** New seeds played by every policy at the end, in this instance and in a fresh one. */
  lateSeeds: number;
  /** Largest fraction of new seeds the do-nothing policy may solve. */
  maximumTrivialSolved: number;
  /** Loads the module in a fresh instance; without it, late plays are only checked against what the policies must get. */
  freshRunner?: () => Promise<FreshRunner>;
}

const sdk = createModuleSdk();
const canonical = (value: unknown): string => sdk.canonical(value as Json);

/** Records in an order that alternates policies (ground truth, do-nothing, …) so re-checks of every kind are spread out. */
function interleaveByPolicy(records: readonly PlayRecord[]): PlayRecord[] {
  const byPolicy = new Map<string, PlayRecord[]>();
  for (const record of records) byPolicy.set(record.policy, [...(byPolicy.get(record.policy) ?? []), record]);
  const groups = [...byPolicy.values()];
  const longest = Math.max(0, ...groups.map((group) => group.length));
  const order: PlayRecord[] = [];
  for (let index = 0; index < longest; index += 1) {
    for (const group of groups) {
      const record = group[index];
      if (record !== undefined) order.push(record);
    }
  }
  return order;
}

/** The fraction of earlier plays of `policy` that succeeded; undefined when there were none. */
function successRate(records: readonly PlayRecord[], policy: string): number | undefined {
  const plays = records.filter((record) => record.policy === policy);
  return plays.length === 0 ? undefined : plays.filter((record) => (JSON.parse(record.verdict) as Verdict).success).length / plays.length;
}

async function verify(runner: ModuleRunner, input: VerifierInput): Promise<Verdict> {
  return checkVerdict(await runner.verify(input));
}

/** Re-checks one earlier play; a problem line when anything differs from the first time. */
async function recheck(runner: GuardedRunner, record: PlayRecord, replay: boolean): Promise<string | null> {
  const at = `after ${runner.counts.verify} verifier calls`;
  let input = record.input;
  if (replay) {
    const instance = await runner.generate(record.seed);
    if (canonical(instance) !== canonical(record.input.instance)) return `seed ${record.seed}: generate returns a different instance ${at}`;
    input = await replayCalls(runner, instance, record.input.calls.map((call) => ({ name: call.name, argumentsText: JSON.stringify(call.arguments) })), record.input.replies);
    if (canonical({ calls: input.calls, finalState: input.finalState }) !== canonical({ calls: record.input.calls, finalState: record.input.finalState })) {
      return `seed ${record.seed}, ${record.policy}: the tools answer differently ${at}`;
    }
  }
  const verdict = canonical(await verify(runner, input));
  return verdict === record.verdict ? null : `seed ${record.seed}, ${record.policy}: the verdict changed ${at}: ${record.verdict} the first time, ${verdict} now`;
}

/** One late play: its policy, what the verifier saw (canonical) and the verdict. */
interface LatePlay {
  seed: number;
  policy: string;
  input: string;
  verdict: Verdict;
}

/** Plays the ground truth, do-nothing and the adversarial policies on `seeds`. */
async function playLate(runner: ModuleRunner, seeds: readonly number[]): Promise<LatePlay[]> {
  const plays: LatePlay[] = [];
  const play = async (seed: number, policy: string, input: VerifierInput) => plays.push({ seed, policy, input: canonical(input), verdict: await verify(runner, input) });
  for (const seed of seeds) {
    const instance: ModuleInstance = await runner.generate(seed);
    const replay = await replayGroundTruth(runner, instance);
    await play(seed, "ground truth", groundTruthInput(replay));
    await play(seed, "do-nothing", { instance, calls: [], replies: [DO_NOTHING_REPLY], finalState: instance.state });
    const changed = await changedArgumentInput(runner, replay);
    if (changed !== null) await play(seed, "changed argument", changed.input);
    const oneExtraWrite = await oneExtraWriteInput(runner, replay);
    if (oneExtraWrite !== null) await play(seed, "one extra write", oneExtraWrite.input);
  }
  return plays;
}

/** Runs the gate on the instance the earlier gates used. */
export async function stabilityGate(name: string, runner: GuardedRunner, options: StabilityOptions): Promise<GateResult> {
  const queue = interleaveByPolicy(options.records);
  const minimumRechecks = Math.min(queue.length, 20);
  const problems: string[] = [];
  let rechecked = 0;
  let newSeeds = 0;
  let newSeedsSolved = 0;
  let nextSeed = options.firstNewSeed;
  for (let index = 0; problems.length === 0 && runner.stopped === null && (runner.counts.verify < options.stabilityCalls || rechecked < minimumRechecks); index += 1) {
    try {
      const record = queue.length === 0 ? undefined : queue[index % queue.length];
      if (record !== undefined) {
        const problem = await recheck(runner, record, index % 4 === 0);
        rechecked += 1;
        if (problem !== null) problems.push(problem);
      }
      if (record === undefined || index % 3 === 2) {
        const seed = nextSeed++;
        const instance = await runner.generate(seed);
        newSeeds += 1;
        if ((await verify(runner, { instance, calls: [], replies: [DO_NOTHING_REPLY], finalState: instance.state })).success) newSeedsSolved += 1;
      }
    } catch (error) {
      problems.push(`after ${runner.counts.verify} verifier calls: ${describeModuleError(error)}`);
    }
  }
  // Drift, not a lax verifier as such (the do-nothing gate judges that): more solved late than the gates saw early.
  const doNothingEarly = successRate(options.records, "do-nothing");
  if (newSeeds > 0 && newSeedsSolved / newSeeds > Math.max(options.maximumTrivialSolved, doNothingEarly ?? 0)) {
    problems.push(`the do-nothing policy solves ${newSeedsSolved}/${newSeeds} new seeds played after the other gates, ${((doNothingEarly ?? 0) * 100).toFixed(1)}% of the seeds before`);
  }
  if (problems.length > 0 || runner.stopped !== null) return { name, passed: false, details: [...problems, ...(runner.stopped === null ? [] : [`stopped: ${runner.stopped}`])] };

  const lateSeeds = Array.from({ length: options.lateSeeds }, (_, index) => nextSeed + index);
  let late: LatePlay[] = [];
  let compared = "checked against what each policy must get (no fresh instance to compare with)";
  try {
    late = await playLate(runner, lateSeeds);
    if (options.freshRunner === undefined) {
      for (const play of late) {
        if (play.policy === "ground truth" || !play.verdict.success || (successRate(options.records, play.policy) ?? 0) > 0) continue;
        problems.push(`new seed ${play.seed}: the ${play.policy} policy succeeds after ${runner.counts.verify} verifier calls, and on no seed before`);
      }
    } else {
      const fresh = await options.freshRunner();
      try {
        const reference = await playLate(guardRunner(fresh), lateSeeds);
        compared = "identical in a fresh instance";
        late.forEach((play, index) => {
          const other = reference[index];
          if (other === undefined || other.policy !== play.policy || other.input !== play.input) problems.push(`new seed ${play.seed}, ${play.policy}: the instance or the tools answer differently than in a fresh instance`);
          else if (canonical(other.verdict) !== canonical(play.verdict)) {
            problems.push(`new seed ${play.seed}, ${play.policy}: verdict ${canonical(play.verdict)} after ${runner.counts.verify} verifier calls, ${canonical(other.verdict)} in a fresh instance`);
          }
        });
        if (reference.length !== late.length) problems.push(`a fresh instance played ${reference.length} policies on the new seeds, this one ${late.length}`);
      } finally {
        await fresh.dispose?.();
      }
    }
  } catch (error) {
    problems.push(`late plays on new seeds ${lateSeeds.join(", ")}: ${describeModuleError(error)}`);
  }
  if (problems.length > 0) return { name, passed: false, details: problems };
  const { generate, runTool, verify: verifyCalls } = runner.counts;
  return {
    name,
    passed: true,
    details: [
      `${verifyCalls} verifier calls in one instance (${generate} generate, ${runTool} runTool): ${rechecked} earlier plays re-checked, do-nothing failed on ${newSeeds} new seeds, ${late.length} late plays on ${lateSeeds.length} new seeds ${compared}`,
    ],
  };
}
