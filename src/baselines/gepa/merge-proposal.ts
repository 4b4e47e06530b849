/**
 * GEPA's system-aware merge (gepa `proposer/merge.py`): two non-dominated candidates that share an ancestor, neither
 * an ancestor of the other, are combined component by component. Where only one of them changed a component from the
 * ancestor, the merge takes that change; where both changed it, the text of the one with the higher mean validation
 * score (a seeded coin on ties); where they agree, their common text. A pair, ancestor and resulting combination are
 * each tried at most once.
 */
import type { Candidate } from "./candidate.js";
import type { CandidatePool } from "./candidate-pool.js";
import { frontFrequencies } from "./pareto-front.js";
import { sampleWithoutReplacement, type RandomSource } from "./random-source.js";

export interface MergePlan {
  candidate: Candidate;
  parents: [number, number];
  ancestor: number;
}

/** Merges tried so far: (pair, ancestor) triplets and (pair, component sources) descriptions. */
export class MergeHistory {
  readonly triplets = new Set<string>();
  readonly descriptions = new Set<string>();
}

/** Whether some component was changed by exactly one of the pair (the condition for a useful merge). */
function hasComplementaryChange(pool: CandidatePool, ancestor: number, first: number, second: number): boolean {
  return pool.components.some((component) => {
    const [base, left, right] = [ancestor, first, second].map((index) => pool.entry(index).candidate[component]);
    return (base === left || base === right) && left !== right;
  });
}

function weightedPick(items: readonly number[], weights: readonly number[], random: RandomSource): number {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total <= 0) return random.pick(items);
  let draw = random.next() * total;
  for (const [index, item] of items.entries()) {
    draw -= weights[index] ?? 0;
    if (draw < 0) return item;
  }
  return items[items.length - 1] as number;
}

/** A pair of non-dominated candidates with a usable common ancestor (up to `attempts` random pairs), or undefined. */
function findMergeTriplet(pool: CandidatePool, candidates: readonly number[], history: MergeHistory, random: RandomSource, attempts: number): [number, number, number] | undefined {
  const means = pool.meanScores();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const [left, right] = sampleWithoutReplacement(candidates, 2, random) as [number, number];
    const [first, second] = left < right ? [left, right] : [right, left];
    const firstAncestors = pool.ancestors(first);
    const secondAncestors = pool.ancestors(second);
    if (firstAncestors.has(second) || secondAncestors.has(first)) continue;
    const common = [...firstAncestors].filter(
      (ancestor) =>
        secondAncestors.has(ancestor) &&
        !history.triplets.has(`${first},${second},${ancestor}`) &&
        (means[ancestor] ?? 0) <= (means[first] ?? 0) &&
        (means[ancestor] ?? 0) <= (means[second] ?? 0) &&
        hasComplementaryChange(pool, ancestor, first, second),
    );
    if (common.length === 0) continue;
    const ancestor = weightedPick(common, common.map((index) => means[index] ?? 0), random);
    return [first, second, ancestor];
  }
  return undefined;
}

/** The next merge to try, or undefined when none is found in `attempts` tries; records its description in `history`. */
export function planMerge(pool: CandidatePool, history: MergeHistory, random: RandomSource, attempts = 10): MergePlan | undefined {
  const candidates = [...frontFrequencies(pool.scoreTable(), pool.meanScores()).keys()];
  if (candidates.length < 2 || pool.entries.length < 3) return undefined;
  const means = pool.meanScores();
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const triplet = findMergeTriplet(pool, candidates, history, random, attempts);
    if (triplet === undefined) continue;
    const [first, second, ancestor] = triplet;
    const merged: Record<string, string> = {};
    const sources: number[] = [];
    for (const component of pool.components) {
      const [base, left, right] = [ancestor, first, second].map((index) => pool.entry(index).candidate[component] as string) as [string, string, string];
      let source: number;
      if ((base === left || base === right) && left !== right) source = base === left ? second : first;
      else if (base !== left && base !== right) source = (means[first] ?? 0) > (means[second] ?? 0) ? first : (means[second] ?? 0) > (means[first] ?? 0) ? second : random.pick([first, second]);
      else source = first;
      merged[component] = pool.entry(source).candidate[component] as string;
      sources.push(source);
    }
    const description = `${first},${second},${sources.join(",")}`;
    if (history.descriptions.has(description)) continue;
    history.descriptions.add(description);
    return { candidate: merged, parents: [first, second], ancestor };
  }
  return undefined;
}

/**
 * The validation instances a merge is judged on (gepa `MergeProposer.select_eval_subsample_for_merged_program`): up to
 * ⌈count/3⌉ each where the first parent scored higher, where the second did, where they tied; then any others.
 */
export function mergeSubsample(firstScores: readonly number[], secondScores: readonly number[], random: RandomSource, count = 5): number[] {
  const indices = firstScores.map((_, index) => index);
  const buckets = [
    indices.filter((index) => (firstScores[index] ?? 0) > (secondScores[index] ?? 0)),
    indices.filter((index) => (secondScores[index] ?? 0) > (firstScores[index] ?? 0)),
    indices.filter((index) => firstScores[index] === secondScores[index]),
  ];
  const each = Math.max(1, Math.ceil(count / 3));
  const selected: number[] = [];
  for (const bucket of buckets) {
    if (selected.length >= count) break;
    selected.push(...sampleWithoutReplacement(bucket, Math.min(each, count - selected.length), random));
  }
  const unused = indices.filter((index) => !selected.includes(index));
  const missing = count - selected.length;
  if (missing > 0 && unused.length >= missing) selected.push(...sampleWithoutReplacement(unused, missing, random));
  else if (missing > 0) for (let added = 0; added < missing; added += 1) selected.push(random.pick(indices));
  return selected.slice(0, count);
}
