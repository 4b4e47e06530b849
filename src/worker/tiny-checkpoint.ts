/** Tiny Qwen3-style checkpoints with random weights, made by the worker's `init-tiny` command (for tests and small experiments). */
import { runWorkerModule, type RunWorkerModuleOptions } from "./run-worker-module.js";

/** Sizes of a tiny checkpoint; unset ones take the worker's defaults (vocabulary 1024, hidden 64, 2 layers, …). */
export interface TinyModelShape {
  vocabSize?: number;
  hiddenSize?: number;
  layers?: number;
  attentionHeads?: number;
  keyValueHeads?: number;
  headDim?: number;
  intermediateSize?: number;
  /** > 0 makes a Qwen3-MoE model. */
  experts?: number;
  seed?: number;
}

const FLAGS: Record<keyof TinyModelShape, string> = {
  vocabSize: "--vocab-size",
  hiddenSize: "--hidden-size",
  layers: "--layers",
  attentionHeads: "--attention-heads",
  keyValueHeads: "--key-value-heads",
  headDim: "--head-dim",
  intermediateSize: "--intermediate-size",
  experts: "--experts",
  seed: "--seed",
};

/** The `init-tiny` arguments for a directory and shape. */
export function tinyCheckpointArguments(directory: string, shape: TinyModelShape = {}): string[] {
  const moduleArguments = ["init-tiny", directory];
  for (const [key, flag] of Object.entries(FLAGS) as [keyof TinyModelShape, string][]) {
    const value = shape[key];
    if (value !== undefined) moduleArguments.push(flag, String(value));
  }
  return moduleArguments;
}

/** Writes a tiny checkpoint (config, safetensors weights, tokenizer, chat template) into `directory`. */
export async function createTinyCheckpoint(directory: string, shape: TinyModelShape = {}, options: RunWorkerModuleOptions = {}): Promise<void> {
  await runWorkerModule(tinyCheckpointArguments(directory, shape), options);
}
