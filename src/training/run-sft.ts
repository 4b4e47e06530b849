/**
 * Supervised fine-tuning of one adapter over the trainer client: per batch one `cross_entropy` forward-backward
 * (weights scaled by 1 / the batch's weighted tokens, so the loss is the per-token mean) and one AdamW step.
 */
import type { TrainerClient } from "../worker/trainer-client.js";
import type { Datum } from "../worker/trainer-types.js";
import { positiveInteger } from "../rollout/positive-integer.js";

export interface RunSftOptions {
  trainer: TrainerClient;
  /** An adapter the trainer already holds. */
  adapter: string;
  datums: readonly Datum[];
  epochs: number;
  /** A constant rate, or the rate of each step by its index (counted from `firstStep`), e.g. `scheduledLearningRate`. */
  learningRate: number | ((step: number) => number);
  batchSize: number;
  /** The index the first step of this call gets in `learningRate`'s count (a run split into several calls) [0]. */
  firstStep?: number;
  /** Gradient-norm clip [worker default 1]. */
  maxGradNorm?: number;
  onStep?: (step: SftStep) => void;
}

/** One optimizer step: its mean per-token loss (before the update) over the batch's weighted tokens. */
export interface SftStep {
  epoch: number;
  step: number;
  loss: number;
  tokens: number;
  gradNorm: number;
}

/** A learning-rate schedule: linear warmup from 0 over `warmupSteps`, then constant or a cosine decay to `floor` × the peak. */
export interface LearningRateSchedule {
  warmupSteps: number;
  decay: "constant" | "cosine";
  /** The last step's rate as a share of the peak (cosine only). */
  floor: number;
}

/** The rate of step `step` (0-based) of `totalSteps` under `schedule`, peaking at `peak`. */
export function scheduledLearningRate(peak: number, step: number, totalSteps: number, schedule: LearningRateSchedule): number {
  if (step < schedule.warmupSteps) return (peak * (step + 1)) / (schedule.warmupSteps + 1);
  if (schedule.decay === "constant") return peak;
  const span = Math.max(1, totalSteps - schedule.warmupSteps - 1);
  const progress = Math.min(1, (step - schedule.warmupSteps) / span);
  return peak * (schedule.floor + (1 - schedule.floor) * 0.5 * (1 + Math.cos(Math.PI * progress)));
}

/** Runs `epochs` passes over the datums in order, `batchSize` datums per step. */
export async function runSft(options: RunSftOptions): Promise<SftStep[]> {
  const { trainer, adapter, datums } = options;
  const epochs = positiveInteger("epochs", options.epochs);
  const batchSize = positiveInteger("batchSize", options.batchSize);
  const steps: SftStep[] = [];
  const learningRate = options.learningRate;
  let index = options.firstStep ?? 0;
  for (let epoch = 1; epoch <= epochs; epoch += 1) {
    for (let start = 0; start < datums.length; start += batchSize) {
      const batch = datums.slice(start, start + batchSize);
      const tokens = batch.reduce((sum, datum) => sum + (datum.weights ?? datum.targetTokens.map(() => 1)).reduce((total, weight) => total + weight, 0), 0);
      if (tokens === 0) continue;
      const scaled = batch.map((datum) => ({ ...datum, weights: (datum.weights ?? datum.targetTokens.map(() => 1)).map((weight) => weight / tokens) }));
      // Only the loss is read: no per-token logprobs back, and only the weighted tokens through the output layer.
      const result = await trainer.forwardBackward({ adapter, loss: "cross_entropy", datums: scaled, returnLogprobs: false });
      const step = await trainer.optimStep({ adapter, learningRate: typeof learningRate === "number" ? learningRate : learningRate(index), ...(options.maxGradNorm === undefined ? {} : { maxGradNorm: options.maxGradNorm }) });
      index += 1;
      const record = { epoch, step: step.step, loss: result.loss, tokens, gradNorm: step.gradNorm };
      steps.push(record);
      options.onStep?.(record);
    }
  }
  return steps;
}
