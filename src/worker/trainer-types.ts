/** What the trainer client takes and gives back: camelCase forms of the worker protocol's snake_case fields. */

/** One training sequence: position i predicts `targetTokens[i]` from `tokens[0..i]` (all arrays one entry per token). */
export interface Datum {
  tokens: number[];
  targetTokens: number[];
  /** Per-token weight (cross-entropy) or mask (0 drops the token from ppo / importance sampling); default 1. */
  weights?: number[];
  /** The sampling policy's logprob of each target token; required by `ppo` and `importance_sampling`. */
  samplingLogprobs?: number[];
  /** Per-token advantage, normalisation included; required by `ppo` and `importance_sampling`. */
  advantages?: number[];
}

/** Per-token losses, summed over tokens and datums (PROTOCOL.md). */
export type LossName = "cross_entropy" | "importance_sampling" | "ppo";

/** PPO's ratio clip range (worker defaults 0.8 and 1.2). */
export interface LossConfig {
  clipLow?: number;
  clipHigh?: number;
}

/** `merge_adapters`: a new adapter from the linear or TIES merge of the sources' weight deltas (PROTOCOL.md). */
export interface MergeAdaptersOptions {
  name: string;
  sources: string[];
  /** One per source; default 1/n each. */
  weights?: number[];
  /** Default linear. */
  method?: "linear" | "ties";
  /** TIES: share of each source's entries kept (default 0.2). */
  density?: number;
  /** Default: the sum of the sources' ranks (exact for a linear merge). */
  rank?: number;
}

/** What `merge_adapters` reports: the truncation's relative Frobenius error per module (max and mean). */
export interface MergedAdapter {
  name: string;
  method: "linear" | "ties";
  rank: number;
  modules: number;
  targetModules: string[];
  maxRelativeError: number;
  meanRelativeError: number;
}

/** What `export_merged` wrote: a Hugging Face checkpoint directory of the base with the adapter merged in. */
export interface MergedCheckpoint {
  /** Absolute path of the directory (on the worker's file system). */
  path: string;
  /** Linear layers whose weight got the adapter's delta. */
  mergedModules: number;
}

export interface CreateAdapterOptions {
  name: string;
  /** Default 16. */
  rank?: number;
  /** Default 16. */
  alpha?: number;
  /** Default 0. */
  dropout?: number;
  /** Default q, k, v, o, gate, up, down projections (those the model has). */
  targetModules?: string[];
  /** Seed of the adapter's A initialisation (default 0). */
  seed?: number;
}

export interface CreatedAdapter {
  name: string;
  trainableParameters: number;
  targetModules: string[];
}

/** One adapter the worker holds (`GET /v1/trainer/adapters`). */
export interface AdapterInfo {
  name: string;
  rank: number;
  alpha: number;
  targetModules: string[];
  /** Optimizer steps taken. */
  step: number;
  trainableParameters: number;
  source: "created" | "loaded";
}

export interface ForwardRequest {
  /** Adapter name; omitted (or the base model's name) for the base model. */
  adapter?: string;
  datums: Datum[];
}

export interface ForwardBackwardRequest {
  adapter: string;
  loss: LossName;
  lossConfig?: LossConfig;
  datums: Datum[];
  /**
   * Default true. False: the answer carries no per-token logprobs, and only tokens of non-zero weight go through the
   * output layer (same loss, gradients and metrics; a smaller answer and less work per step, e.g. for SFT).
   */
  returnLogprobs?: boolean;
}

export interface ForwardBackwardMetrics {
  lossSum: number;
  /** Share of weighted tokens whose ratio fell outside the clip range; null without sampling logprobs. */
  clipFraction: number | null;
  /** Mean k3 estimate of KL(policy ‖ sampling policy) over weighted tokens; null without sampling logprobs. */
  approxKl: number | null;
  /** Mean per-token entropy of the current policy. */
  entropy: number;
  /** Mean ratio policy / sampling policy over weighted tokens; null without sampling logprobs. */
  meanRatio: number | null;
}

export interface ForwardBackwardResult {
  /** Summed loss. */
  loss: number;
  /** Weighted (unmasked) tokens. */
  tokens: number;
  metrics: ForwardBackwardMetrics;
  /** The policy's logprob of each target token, per datum, before this step's update; absent when `returnLogprobs` was false. */
  logprobs?: number[][];
}

/** AdamW settings of one step; unset fields take the worker's defaults (lr 1e-5, betas 0.9/0.999, eps 1e-8, no decay, clip 1). */
export interface OptimStepOptions {
  adapter: string;
  learningRate?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  /** Gradient-norm clip; 0 disables clipping. */
  maxGradNorm?: number;
}

export interface OptimStepResult {
  /** Steps taken so far by this adapter. */
  step: number;
  /** Gradient norm before clipping. */
  gradNorm: number;
}

/** `GET /health`. */
export interface WorkerHealth {
  status: "ok";
  model: string;
  device: string;
  dtype: string;
  worldSize: number;
  /** Whether the worker trains with deterministic algorithms (`serve --deterministic`; false for a worker too old to say). */
  deterministic: boolean;
  /** What it computes on: the GPU's name, or the CPU's model and usable cores (absent from a worker too old to say). */
  accelerator?: string;
  /** Versions of Python and the numerical libraries (`torch`, `transformers`, `peft`). */
  versions?: Record<string, string>;
}

/** One entry of `GET /v1/models`: the base model (`parent` null) or an adapter on it. */
export interface ServedModel {
  id: string;
  /** The base model for the base; for an adapter whatever the server says (vLLM: its path; the worker: its name). */
  root: string;
  parent: string | null;
}
