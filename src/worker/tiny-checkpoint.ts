/** Tiny Qwen3-style checkpoints with random weights, made by the worker's `init-tiny` command (for tests and small experiments). */
import path from "node:path";
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

/** How `createTinyCheckpoint` runs the worker, and what the tokenizer is trained on. */
export interface TinyCheckpointOptions extends RunWorkerModuleOptions {
  /**
   * A UTF-8 text file (documents separated by blank lines) to train the tokenizer on instead of the project's own
   * text, e.g. a custom world's text; the chat template's strings are added either way.
   */
  corpus?: string;
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

/** The `init-tiny` arguments for a directory, shape and corpus file (paths passed as given). */
export function tinyCheckpointArguments(directory: string, shape: TinyModelShape = {}, corpus?: string): string[] {
  const moduleArguments = ["init-tiny", directory];
  for (const [key, flag] of Object.entries(FLAGS) as [keyof TinyModelShape, string][]) {
    const value = shape[key];
    if (value !== undefined) moduleArguments.push(flag, String(value));
  }
  if (corpus !== undefined) moduleArguments.push("--corpus", corpus);
  return moduleArguments;
}

/**
 * Writes a tiny checkpoint (config, safetensors weights, tokenizer, chat template) into `directory`. A relative
 * `corpus` is resolved against this process's directory (the worker runs in the repository root).
 */
export async function createTinyCheckpoint(directory: string, shape: TinyModelShape = {}, options: TinyCheckpointOptions = {}): Promise<void> {
  const { corpus, ...runOptions } = options;
  await runWorkerModule(tinyCheckpointArguments(directory, shape, corpus === undefined ? undefined : path.resolve(corpus)), runOptions);
}
