/** Adapter sync: how the trainer's updated weights reach the sampler, checked by a logprob probe after every sync. */

/** Makes the trainer's current adapter weights sampleable. */
export interface AdapterSync {
  /** Called after each optimizer step (and once before the first rollouts); returns the model name to sample. */
  sync(step: number): Promise<string>;
}
