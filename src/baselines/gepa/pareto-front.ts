/**
 * GEPA's per-instance Pareto front and its candidate selection (gepa `gepa_utils.py`: `remove_dominated_programs`,
 * `select_program_candidate_from_pareto_front`; `state.py`: `_update_pareto_front_for_val_id`).
 *
 * - The front of a validation instance is the set of candidates with the best score on it (ties all kept).
 * - A candidate is dominated when every front it belongs to also holds another candidate still standing. Candidates
 *   are examined from the lowest aggregate score up (ties by index); the first dominated one is removed and the scan
 *   restarts, until none is found.
 * - Selection samples one surviving candidate with probability proportional to the number of fronts it is in.
 */
import { EmptyScoreTableError } from "./empty-score-table-error.js";
import type { RandomSource } from "./random-source.js";

/** For each instance (column of `scores[candidate][instance]`), the candidates with the highest score on it. */
export function instanceFronts(scores: readonly (readonly number[])[]): Set<number>[] {
  const first = scores[0];
  if (first === undefined || first.length === 0) throw new EmptyScoreTableError(scores);
  return first.map((_, instance) => {
    const best = Math.max(...scores.map((row) => row[instance] ?? Number.NEGATIVE_INFINITY));
    return new Set(scores.flatMap((row, candidate) => (row[instance] === best ? [candidate] : [])));
  });
}

function isDominated(candidate: number, standing: ReadonlySet<number>, fronts: readonly ReadonlySet<number>[]): boolean {
  return fronts.filter((front) => front.has(candidate)).every((front) => [...front].some((other) => other !== candidate && standing.has(other)));
}

/** The fronts with dominated candidates removed; `aggregates[candidate]` orders the scan (lowest first). */
export function removeDominatedCandidates(fronts: readonly ReadonlySet<number>[], aggregates: readonly number[]): Set<number>[] {
  const members = [...new Set(fronts.flatMap((front) => [...front]))];
  const order = members.sort((left, right) => (aggregates[left] ?? 0) - (aggregates[right] ?? 0) || left - right);
  const standing = new Set(order);
  let removed = true;
  while (removed) {
    removed = false;
    for (const candidate of order) {
      if (!standing.has(candidate)) continue;
      standing.delete(candidate);
      if (isDominated(candidate, standing, fronts)) {
        removed = true;
        break;
      }
      standing.add(candidate);
    }
  }
  return fronts.map((front) => new Set([...front].filter((candidate) => standing.has(candidate))));
}

/** How many (non-dominated) fronts each surviving candidate is in, in order of first appearance. */
export function frontFrequencies(scores: readonly (readonly number[])[], aggregates: readonly number[]): Map<number, number> {
  const frequencies = new Map<number, number>();
  for (const front of removeDominatedCandidates(instanceFronts(scores), aggregates)) {
    for (const candidate of [...front].sort((left, right) => left - right)) frequencies.set(candidate, (frequencies.get(candidate) ?? 0) + 1);
  }
  return frequencies;
}

/** Samples a candidate index with probability proportional to its number of fronts (one uniform draw). */
export function selectFromParetoFront(scores: readonly (readonly number[])[], aggregates: readonly number[], random: RandomSource): number {
  const weighted = [...frontFrequencies(scores, aggregates)].flatMap(([candidate, count]) => Array.from({ length: count }, () => candidate));
  return random.pick(weighted);
}
