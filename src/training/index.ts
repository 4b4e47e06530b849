/** GRPO per capability against the trainer API, and adapter sync to the sampler. */
export type * from "./grpo-types.js";
export { createAdapterSync, versionedAdapterName, type AdapterSync, type AdapterSyncOptions, type LoraSampler, type SyncedAdapter } from "./adapter-sync.js";
export { DEFAULT_PROBE_MESSAGES, probeLogprobs, type LogprobProbeOptions } from "./logprob-probe.js";
export { SamplerLogprobMismatchError } from "./sampler-logprob-mismatch-error.js";
export { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";
export {
  ADVANTAGE_NORMALIZATIONS,
  batchDatums,
  buildTrainingSequences,
  filterGroups,
  groupAdvantages,
  normalizationScales,
  sequenceDatum,
  sequencesOfTurns,
  weightedTokenCount,
  type AdvantageNormalization,
  type GroupFilterResult,
  type KeptGroup,
  type TrainingSequence,
} from "./grpo-data.js";
export { runGrpo } from "./run-grpo.js";
export { grpoMechanismsSchema, parseGrpoMechanisms, type GrpoMechanisms, type GrpoMechanismsInput } from "./grpo-mechanisms.js";
export { GrpoMechanismsError } from "./grpo-mechanisms-error.js";
export { mostEpisodesPerIteration } from "./grpo-dynamic-sampling.js";
export { readCheckpoint, stepDirectoryName, type GrpoCheckpoint } from "./grpo-checkpoint.js";
export { grpoMetricScope } from "./grpo-metrics-log.js";
export { planIteration, type PlannedGroup } from "./grpo-schedule.js";
export { runMinimalGrpo, type GrpoIterationStats, type MinimalGrpoOptions } from "./minimal-grpo.js";
