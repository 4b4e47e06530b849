/**
 * GEPA's candidate pool (gepa `core/state.py`): every accepted candidate with its parents, its score on each
 * validation instance, the budget spent when it was found, and the component its next mutation rewrites (round robin
 * over the components, gepa `strategies/component_selector.py`; a child continues from its parents' furthest pointer).
 */
import type { Candidate } from "./candidate.js";

export interface PoolEntry {
  candidate: Candidate;
  /** Pool indices of the parents (none for the seed, two for a merge). */
  parents: readonly number[];
  /** Score on each validation instance, in the validation set's order. */
  validationScores: readonly number[];
  /** Mean validation score (GEPA's aggregate). */
  meanScore: number;
  /** Episodes spent before this candidate's validation evaluation. */
  discoveredAtBudget: number;
}

export class CandidatePool {
  readonly entries: PoolEntry[] = [];
  readonly #nextComponent: number[] = [];

  /** `components`: the component names, in round-robin order. */
  constructor(readonly components: readonly string[]) {}

  /** Adds a validated candidate and returns its index. */
  add(entry: Omit<PoolEntry, "meanScore">): number {
    const meanScore = entry.validationScores.reduce((total, score) => total + score, 0) / entry.validationScores.length;
    this.entries.push({ ...entry, meanScore });
    this.#nextComponent.push(Math.max(0, ...entry.parents.map((parent) => this.#nextComponent[parent] ?? 0)));
    return this.entries.length - 1;
  }

  entry(index: number): PoolEntry {
    return this.entries[index] as PoolEntry;
  }

  /** `scores[candidate][instance]` on the validation set. */
  scoreTable(): number[][] {
    return this.entries.map((entry) => [...entry.validationScores]);
  }

  meanScores(): number[] {
    return this.entries.map((entry) => entry.meanScore);
  }

  /** The candidate with the highest mean validation score (the earliest on ties). */
  best(): number {
    const means = this.meanScores();
    return means.indexOf(Math.max(...means));
  }

  /** The component to rewrite next for `index`, advancing its round-robin pointer. */
  takeNextComponent(index: number): string {
    const pointer = this.#nextComponent[index] ?? 0;
    this.#nextComponent[index] = (pointer + 1) % this.components.length;
    return this.components[pointer] as string;
  }

  /** Every ancestor of `index` (parents, their parents, …). */
  ancestors(index: number): Set<number> {
    const found = new Set<number>();
    const pending = [...this.entry(index).parents];
    while (pending.length > 0) {
      const parent = pending.pop() as number;
      if (found.has(parent)) continue;
      found.add(parent);
      pending.push(...this.entry(parent).parents);
    }
    return found;
  }
}
