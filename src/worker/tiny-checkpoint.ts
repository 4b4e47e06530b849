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
  /** Context length in tokens (default 4096; a τ² system prompt alone is ~9k tokens with the tiny tokenizer). */
  maxPositions?: number;
  seed?: number;
  /** Ties the output layer to the input embedding and gives identifier-like tokens (u15, #W23) a shared direction, so copying one from the context needs only attention. */
  tieEmbeddings?: boolean;
}

/** How `createTinyCheckpoint` runs the worker, and what the tokenizer is trained on. */
export interface TinyCheckpointOptions extends RunWorkerModuleOptions {
  /**
   * A UTF-8 text file (documents separated by blank lines) to train the tokenizer on instead of the project's own
   * text, e.g. a custom world's text; the chat template's strings are added either way.
   */
  corpus?: string;
  /** A JSON-lines file of conversations (`messages`, optional `tools`) rendered with the chat template for the tokenizer. */
  chatCorpus?: string;
  /** Let tokenizer merges span spaces and punctuation, so repeated text (a fixed system prompt) becomes a few tokens. */
  mergeAcrossWords?: boolean;
  /** Make every digit a token of its own, as Qwen's tokenizer does (identifiers are then copied digit by digit). */
  splitDigits?: boolean;
}

/** What the tokenizer is trained on (paths passed as given), and how it splits text. */
export type TokenizerCorpus = Pick<TinyCheckpointOptions, "corpus" | "chatCorpus" | "mergeAcrossWords" | "splitDigits">;

const FLAGS: Record<Exclude<keyof TinyModelShape, "tieEmbeddings">, string> = {
  vocabSize: "--vocab-size",
  hiddenSize: "--hidden-size",
  layers: "--layers",
  attentionHeads: "--attention-heads",
  keyValueHeads: "--key-value-heads",
  headDim: "--head-dim",
  intermediateSize: "--intermediate-size",
  experts: "--experts",
  seed: "--seed",
  maxPositions: "--max-positions",
};

/** The `init-tiny` arguments for a directory, shape and tokenizer corpus. */
export function tinyCheckpointArguments(directory: string, shape: TinyModelShape = {}, tokenizer: TokenizerCorpus = {}): string[] {
  const moduleArguments = ["init-tiny", directory];
  for (const [key, flag] of Object.entries(FLAGS) as [Exclude<keyof TinyModelShape, "tieEmbeddings">, string][]) {
    const value = shape[key];
    if (value !== undefined) moduleArguments.push(flag, String(value));
  }
  if (shape.tieEmbeddings === true) moduleArguments.push("--tie-embeddings");
  if (tokenizer.corpus !== undefined) moduleArguments.push("--corpus", tokenizer.corpus);
  if (tokenizer.chatCorpus !== undefined) moduleArguments.push("--chat-corpus", tokenizer.chatCorpus);
  if (tokenizer.mergeAcrossWords === true) moduleArguments.push("--merge-across-words");
  if (tokenizer.splitDigits === true) moduleArguments.push("--split-digits");
  return moduleArguments;
}

/**
 * Writes a tiny checkpoint (config, safetensors weights, tokenizer, chat template) into `directory`. Relative corpus
 * paths are resolved against this process's directory (the worker runs in the repository root).
 */
export async function createTinyCheckpoint(directory: string, shape: TinyModelShape = {}, options: TinyCheckpointOptions = {}): Promise<void> {
  const { corpus, chatCorpus, mergeAcrossWords, splitDigits, ...runOptions } = options;
  const tokenizer: TokenizerCorpus = {
    ...(corpus === undefined ? {} : { corpus: path.resolve(corpus) }),
    ...(chatCorpus === undefined ? {} : { chatCorpus: path.resolve(chatCorpus) }),
    ...(mergeAcrossWords === undefined ? {} : { mergeAcrossWords }),
    ...(splitDigits === undefined ? {} : { splitDigits }),
  };
  await runWorkerModule(tinyCheckpointArguments(directory, shape, tokenizer), runOptions);
}
