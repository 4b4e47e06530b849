/**
 * Labeling (TRACE step 2): N independent runs in which the analyst gives every (trajectory, capability) pair NA,
 * PRESENT or LACKING. Each run visits the trajectories in its own seeded order, in batches that fit the context; a
 * batch's labels are stored (labels table, run `<prefix>-NN`) as soon as its reply validates, so a killed labeling
 * resumes with the trajectories still unlabeled. A batch whose replies never validate is split in halves and retried;
 * a single trajectory that still fails is recorded as a failure, never given invented labels.
 */
import type { ChatClient } from "../models/chat-client.js";
import type { EpisodeKey, TrajectoryStore } from "../store/trajectory-store.js";
import { analysisPrompt } from "./analysis-prompts.js";
import type { CandidateCapability } from "./candidates-file.js";
import { batchTrajectories } from "./context-budget.js";
import { validateBatchLabels } from "./labeling-output.js";
import type { RenderedTrajectory } from "../rollout/render-trajectory.js";
import type { LabelingFailure } from "./run-file.js";
import { requestStructured } from "./structured-request.js";

/** Tokens a label takes in the reply, roughly (`"capability_name": "PRESENT",`), for sizing batches by output. */
const TOKENS_PER_LABEL = 14;

export interface LabelingOptions {
  store: TrajectoryStore;
  client: ChatClient;
  /** The trajectories with the episode each belongs to. */
  trajectories: readonly (RenderedTrajectory & { episode: EpisodeKey })[];
  capabilities: readonly CandidateCapability[];
  runs: number;
  /** Store run names are `<runPrefix>-01` … */
  runPrefix: string;
  /** Tokens available to trajectories in one labeling request. */
  budgetTokens: number;
  /** Most trajectories in one request. */
  batchSize: number;
  maxAttempts: number;
  maxTokens: number;
  temperature?: number;
  onBatch?: (event: { run: number; keys: readonly string[]; ok: boolean }) => void;
}

/** The store's run name of labeling run `run` (1-based). */
export function labelingRunName(prefix: string, run: number): string {
  return `${prefix}-${String(run).padStart(2, "0")}`;
}

/** Deterministic shuffle (mulberry32 seeded with `seed`). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let index = out.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [out[index], out[other]] = [out[other] as T, out[index] as T];
  }
  return out;
}

/** The trajectories of a run that still lack a label for some capability. */
function unlabeled(options: LabelingOptions, run: number): LabelingOptions["trajectories"] {
  const labels = options.store.listLabels({ run: labelingRunName(options.runPrefix, run) });
  const counted = new Map<string, Set<string>>();
  for (const label of labels) {
    const key = `${label.environment}\u0000${label.taskId}\u0000${label.trial}`;
    let set = counted.get(key);
    if (set === undefined) counted.set(key, (set = new Set()));
    set.add(label.capability);
  }
  return options.trajectories.filter((trajectory) => {
    const got = counted.get(`${trajectory.episode.environment}\u0000${trajectory.episode.taskId}\u0000${trajectory.episode.trial}`);
    return !options.capabilities.every((capability) => got?.has(capability.name) === true);
  });
}

/** Labels what is still unlabeled in every run; returns the failures per run (1-based). */
export async function labelWithAnalyst(options: LabelingOptions): Promise<Map<number, LabelingFailure[]>> {
  const names = options.capabilities.map((capability) => capability.name);
  const capabilityText = options.capabilities.map((capability) => `- ${capability.name}: ${capability.description}`).join("\n");
  const byOutput = Math.max(1, Math.floor(options.maxTokens / (names.length * TOKENS_PER_LABEL + 12)));
  const maxItems = Math.max(1, Math.min(options.batchSize, byOutput));

  const labelBatch = async (run: number, batch: LabelingOptions["trajectories"]): Promise<LabelingFailure[]> => {
    const keys = batch.map((trajectory) => trajectory.key);
    const prompt = analysisPrompt("labeling", {
      CAPABILITIES: capabilityText,
      TRAJECTORY_COUNT: batch.length,
      TRAJECTORY_IDS: keys.join(", "),
      TRAJECTORIES: batch.map((trajectory) => trajectory.text).join("\n\n"),
    });
    const outcome = await requestStructured({
      client: options.client,
      prompt,
      validate: (value) => validateBatchLabels(value, keys, names),
      maxAttempts: options.maxAttempts,
      maxTokens: options.maxTokens,
      seed: run * 1000,
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    });
    if (outcome.ok) {
      const runName = labelingRunName(options.runPrefix, run);
      options.store.upsertLabels(
        batch.flatMap((trajectory) =>
          Object.entries(outcome.value.get(trajectory.key) ?? {}).map(([capability, label]) => ({ ...trajectory.episode, capability, run: runName, label })),
        ),
      );
    }
    // Reported once stored, so a progress line never claims labels that a crash could lose.
    options.onBatch?.({ run, keys, ok: outcome.ok });
    if (outcome.ok) return [];
    if (batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      return [...(await labelBatch(run, batch.slice(0, half))), ...(await labelBatch(run, batch.slice(half)))];
    }
    return [{ keys, error: outcome.problems.join("; ") }];
  };

  const failures = new Map<number, LabelingFailure[]>();
  const work: Promise<void>[] = [];
  for (let run = 1; run <= options.runs; run++) {
    failures.set(run, []);
    const batches = batchTrajectories(shuffled(unlabeled(options, run), run), options.budgetTokens, maxItems);
    for (const batch of batches) work.push(labelBatch(run, batch).then((found) => void failures.get(run)?.push(...found)));
  }
  await Promise.all(work);
  return failures;
}
