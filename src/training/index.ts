/** GRPO per capability against the trainer API, and adapter sync to the sampler. */
export type * from "./grpo-types.js";
export type { AdapterSync } from "./adapter-sync.js";
export { ADVANTAGE_NORMALIZATIONS, type AdvantageNormalization } from "./advantage-normalization.js";
export type { TrainingSequence } from "./training-sequence.js";
