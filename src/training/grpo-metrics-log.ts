/** Per-iteration GRPO metrics: one JSON line each in `metrics.jsonl`, and numeric fields in the store's metrics table. */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import type { TrajectoryStore } from "../store/trajectory-store.js";
import type { GrpoIterationMetrics } from "./grpo-types.js";

/** The store scope of a capability's GRPO metrics. */
export function grpoMetricScope(capability: string): string {
  return `grpo/${capability}`;
}

/** Keeps the lines of iterations ≤ `iteration` (those a resume does not redo). */
export function truncateMetricsFile(file: string, iteration: number): void {
  if (!existsSync(file)) return;
  const kept = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "" && (JSON.parse(line) as GrpoIterationMetrics).iteration <= iteration);
  writeFileSync(file, kept.map((line) => line + "\n").join(""));
}

/** Episodes sampled by iterations 1 … `iteration` as the file records them; null when the file lacks one of them. */
export function episodesThrough(file: string, iteration: number): number | null {
  if (!existsSync(file)) return iteration === 0 ? 0 : null;
  const episodes = new Map<number, number>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const metrics = JSON.parse(line) as GrpoIterationMetrics;
    episodes.set(metrics.iteration, metrics.episodes);
  }
  let total = 0;
  for (let step = 1; step <= iteration; step += 1) {
    const count = episodes.get(step);
    if (count === undefined) return null;
    total += count;
  }
  return total;
}

/** Appends the line and records every finite numeric field (`normalization` as its name in the JSON line only). */
export function recordIterationMetrics(file: string, store: TrajectoryStore | undefined, capability: string, metrics: GrpoIterationMetrics): void {
  appendFileSync(file, JSON.stringify(metrics) + "\n");
  if (store === undefined) return;
  const values: Record<string, number> = {};
  for (const [name, value] of Object.entries(metrics)) if (name !== "iteration" && typeof value === "number" && Number.isFinite(value)) values[name] = value;
  store.recordMetrics(grpoMetricScope(capability), metrics.iteration, values);
}
