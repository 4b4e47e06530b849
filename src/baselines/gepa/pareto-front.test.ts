import assert from "node:assert/strict";
import { test } from "node:test";
import { EmptyScoreTableError } from "./empty-score-table-error.js";
import { frontFrequencies, instanceFronts, removeDominatedCandidates, selectFromParetoFront } from "./pareto-front.js";
import { seededRandom, type RandomSource } from "./random-source.js";

// scores[candidate][instance]; means 0.25, 0.5, 0.25, 0.5.
const table = [
  [1, 0, 0, 0],
  [1, 1, 0, 0],
  [0, 0, 1, 0],
  [0, 1, 0, 1],
];
const means = table.map((row) => row.reduce((total, score) => total + score, 0) / row.length);

/** A random source whose uniform draws are given in advance. */
function scriptedRandom(draws: number[]): RandomSource {
  const next = () => draws.shift() as number;
  return { next, int: (min, max) => min + Math.floor(next() * (max - min + 1)), pick: (items) => items[Math.floor(next() * items.length)]!, shuffle: (items) => [...items] };
}

test("each instance's front holds every candidate with its best score", () => {
  assert.deepEqual(instanceFronts(table).map((front) => [...front].sort()), [[0, 1], [1, 3], [2], [3]]);
  assert.throws(() => instanceFronts([]), EmptyScoreTableError);
});

test("dominated candidates leave the fronts: 0 is beaten wherever it is best; 1, 2 and 3 each stand alone somewhere", () => {
  // Scan from the lowest mean: 0 (0.25) is only on instance 0's front, where 1 also is → removed. 2 is alone on
  // instance 2, 1 alone on instance 0 now, 3 alone on instance 3 → all kept.
  assert.deepEqual(removeDominatedCandidates(instanceFronts(table), means).map((front) => [...front].sort()), [[1], [1, 3], [2], [3]]);
  // Frequencies in order of first appearance: 1 on two fronts, 3 on two, 2 on one.
  assert.deepEqual([...frontFrequencies(table, means)], [[1, 2], [3, 2], [2, 1]]);
});

test("of identical candidates only the later one survives (scan lowest mean first, then lowest index)", () => {
  assert.deepEqual([...frontFrequencies([[1, 0.5], [1, 0.5]], [0.75, 0.75])], [[1, 2]]);
});

test("selection draws from [1, 1, 3, 3, 2] with one uniform number; a seeded source gives 2/5, 2/5, 1/5", () => {
  assert.deepEqual([0, 0.39, 0.4, 0.79, 0.8, 0.99].map((draw) => selectFromParetoFront(table, means, scriptedRandom([draw]))), [1, 1, 3, 3, 2, 2]);
  const random = seededRandom(7);
  const counts = new Map<number, number>();
  for (let draw = 0; draw < 10_000; draw += 1) {
    const picked = selectFromParetoFront(table, means, random);
    counts.set(picked, (counts.get(picked) ?? 0) + 1);
  }
  assert.equal(counts.get(0), undefined);
  assert.ok(Math.abs(counts.get(1)! / 10_000 - 0.4) < 0.02, String(counts.get(1)));
  assert.ok(Math.abs(counts.get(3)! / 10_000 - 0.4) < 0.02, String(counts.get(3)));
  assert.ok(Math.abs(counts.get(2)! / 10_000 - 0.2) < 0.02, String(counts.get(2)));
  const again = seededRandom(7);
  assert.equal(selectFromParetoFront(table, means, again), selectFromParetoFront(table, means, seededRandom(7)));
});
