/** `RUN/adapters/<capability>/training.json`: a capability adapter the train stage finished. */
import { z } from "zod";

export interface TrainedAdapter {
  capability: string;
  /** The adapter directory to load for sampling (PEFT layout); relative to the run directory in the file, absolute once read. */
  adapterPath: string;
  /** The adapter's name on the worker. */
  adapter: string;
  iterations: number;
  /** Mean reward of the first and last iterations run. */
  firstRewardMean: number | null;
  lastRewardMean: number | null;
  finishedAt: string;
}

export const trainedAdapterSchema: z.ZodType<TrainedAdapter> = z.looseObject({
  capability: z.string().min(1),
  adapterPath: z.string().min(1),
  adapter: z.string().min(1),
  iterations: z.number().int(),
  firstRewardMean: z.number().nullable(),
  lastRewardMean: z.number().nullable(),
  finishedAt: z.string(),
});
