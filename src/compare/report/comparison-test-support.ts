/** Hand-made results for the report tests: two methods × three seeds × two domains, numbers worked out by hand. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { MethodSeedResult } from "./comparison-types.js";
import { scratchDirectory } from "../../testing/scratch-directory.js";

/** Builds one result; `passed` per domain out of 10 episodes each. */
export function result(partial: Pick<MethodSeedResult, "method" | "label" | "group" | "seed">, airline: number, retail: number, spent: number): MethodSeedResult {
  return {
    ...partial,
    domains: [
      { domain: "airline", passed: airline, total: 10, meanReward: airline / 10 },
      { domain: "retail", passed: retail, total: 10, meanReward: retail / 10 },
    ],
    budget: { limit: 1000, spent, evaluation: 20 },
    curve: [
      { episodes: 0, score: 0.1 },
      { episodes: spent, score: (airline + retail) / 20 },
    ],
  };
}

const BASE = { method: "base", label: "Base agent", group: "baseline" } as const;
const TRACE = { method: "trace", label: "TRACE, routed adapters", group: "trace" } as const;

/**
 * base:  airline 0.5 0.6 0.7 → 60.0 ± 10.0; retail 0.2 0.4 0.6 → 40.0 ± 20.0; overall 0.35 0.50 0.65 → 50.0 ± 15.0.
 * trace: airline 0.8 0.8 0.9 → 83.3 ± 5.8;  retail 0.5 0.7 0.6 → 60.0 ± 10.0; overall 0.65 0.75 0.75 → 71.7 ± 5.8;
 *        delta vs base +21.7 points; spent 990 1000 980 → 990.
 */
export const HAND_MADE: MethodSeedResult[] = [
  result({ ...BASE, seed: 1 }, 5, 2, 0),
  result({ ...TRACE, seed: 1 }, 8, 5, 990),
  result({ ...BASE, seed: 2 }, 6, 4, 0),
  result({ ...TRACE, seed: 2 }, 8, 7, 1000),
  result({ ...BASE, seed: 3 }, 7, 6, 0),
  result({ ...TRACE, seed: 3 }, 9, 6, 980),
];

/** Options matching HAND_MADE. */
export const OPTIONS = { title: "Comparison on τ²-bench", budget: 1000 };

/** A run directory whose compare/ holds the given results, as `trace compare` writes them. */
export function runWith(results: readonly MethodSeedResult[]): string {
  const directory = scratchDirectory("trace-pool-");
  for (const entry of results) {
    const file = path.join(directory, "compare", `seed-${entry.seed}`, entry.method, "result.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ ...entry, snapshots: [], notes: [] }));
  }
  return directory;
}

/** `runWith`, with a config.json whose target names TRACE-mini's held-out seeds from `start` (as `trace run` writes it). */
export function runOnSplit(start: number, results: readonly MethodSeedResult[]): string {
  const directory = runWith(results);
  writeFileSync(path.join(directory, "config.json"), JSON.stringify({ name: "x", target: { kind: "mini", trainingSeeds: 120, evaluationSeedStart: start, evaluationSeedCount: 100, seed: 0 } }));
  return directory;
}
