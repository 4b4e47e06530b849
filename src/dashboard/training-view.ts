/**
 * The training view: per adapter, GRPO's curves over iterations from `adapters/<capability>/metrics.jsonl` (read as it
 * grows: a line still being written is left for the next read), whether it finished (`training.json`), and which
 * iterations' sampled episodes the store holds.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TopLevelSpec } from "vega-lite";
import type { RunDirectory } from "../run/run-directory.js";
import type { TrainedAdapter } from "../run/trained-adapter.js";
import type { GrpoIterationMetrics } from "../training/grpo-types.js";
import { trainingCurveSpec } from "./chart-specs.js";
import { checkRunDirectory, withExistingStore } from "./dashboard-run.js";

/** The curves drawn per adapter, in order, with their titles. */
export const TRAINING_CURVES = [
  ["rewardMean", "reward mean"],
  ["rewardStd", "reward sd"],
  ["groupsKept", "groups kept"],
  ["groupsDropped", "groups dropped"],
  ["loss", "loss"],
  ["clipFraction", "clip fraction"],
  ["approxKl", "KL (approx.)"],
  ["entropy", "entropy"],
  ["gradNorm", "grad norm"],
  ["probeLogprobDifference", "probe logprob difference"],
] as const satisfies readonly (readonly [keyof GrpoIterationMetrics, string])[];

export interface AdapterTraining {
  capability: string;
  iterations: GrpoIterationMetrics[];
  trained: TrainedAdapter | null;
  curves: { metric: string; title: string; points: number; spec: TopLevelSpec }[];
  /** Iterations with stored training episodes, and how many each. */
  storedIterations: { iteration: number; episodes: number; meanReward: number | null }[];
  problems: string[];
}

export interface TrainingView {
  adapters: AdapterTraining[];
  notices: string[];
}

/** The complete lines of a metrics file; a malformed complete line is reported, a trailing partial line waits. */
export function readMetricsLines(file: string): { iterations: GrpoIterationMetrics[]; problems: string[] } {
  const text = readFileSync(file, "utf8");
  const complete = text.endsWith("\n") ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  const iterations: GrpoIterationMetrics[] = [];
  const problems: string[] = [];
  complete.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    try {
      const parsed = JSON.parse(line) as GrpoIterationMetrics;
      if (typeof parsed.iteration !== "number") throw new Error("no iteration number");
      iterations.push(parsed);
    } catch (error) {
      problems.push(`${path.basename(path.dirname(file))}/metrics.jsonl line ${index + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return { iterations, problems };
}

/** Reads every adapter directory with a `metrics.jsonl`. */
export function readTrainingView(run: RunDirectory): TrainingView {
  checkRunDirectory(run);
  const directory = run.adaptersDirectory;
  const capabilities = existsSync(directory)
    ? readdirSync(directory, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && existsSync(path.join(directory, entry.name, "metrics.jsonl")))
        .map((entry) => entry.name)
        .sort()
    : [];
  if (capabilities.length === 0) return { adapters: [], notices: ["no training yet (adapters/<capability>/metrics.jsonl is written after each GRPO iteration)"] };
  const stored = withExistingStore(run.storeFile, [] as { adapter: string; iteration: number; episodes: number; meanReward: number | null }[], (store) => store.training.iterations());
  const adapters = capabilities.map((capability): AdapterTraining => {
    const { iterations, problems } = readMetricsLines(path.join(directory, capability, "metrics.jsonl"));
    const curves = TRAINING_CURVES.map(([metric, title]) => {
      const points = iterations.flatMap((row) => (typeof row[metric] === "number" && Number.isFinite(row[metric]) ? [{ iteration: row.iteration, value: row[metric] }] : []));
      return { metric, title, points: points.length, spec: trainingCurveSpec(title, points) };
    });
    return {
      capability,
      iterations,
      trained: run.readTrainedAdapter(capability) ?? null,
      curves,
      storedIterations: stored.filter((row) => row.adapter === capability).map(({ iteration, episodes, meanReward }) => ({ iteration, episodes, meanReward })),
      problems,
    };
  });
  return { adapters, notices: [] };
}
