/** `trace model init-tiny DIR`: a tiny Qwen3-style checkpoint with random weights, written by the Python worker. */
import type { Command } from "commander";
import { createTinyCheckpoint, type TinyModelShape } from "../worker/tiny-checkpoint.js";
import { checkDirectoryPath } from "../run/path-checks.js";
import { integerOption } from "./integer-option.js";

const SHAPE_OPTIONS: { flag: string; key: Exclude<keyof TinyModelShape, "tieEmbeddings">; minimum: number; help: string }[] = [
  { flag: "--vocab-size", key: "vocabSize", minimum: 1, help: "vocabulary size, special tokens included (default 1024)" },
  { flag: "--hidden-size", key: "hiddenSize", minimum: 1, help: "hidden size (default 64)" },
  { flag: "--layers", key: "layers", minimum: 1, help: "decoder layers (default 2)" },
  { flag: "--attention-heads", key: "attentionHeads", minimum: 1, help: "attention heads (default 4)" },
  { flag: "--key-value-heads", key: "keyValueHeads", minimum: 1, help: "key/value heads (default 2)" },
  { flag: "--head-dim", key: "headDim", minimum: 1, help: "attention head size (default 16)" },
  { flag: "--intermediate-size", key: "intermediateSize", minimum: 1, help: "MLP intermediate size (default 192)" },
  { flag: "--experts", key: "experts", minimum: 0, help: "> 0 makes a Qwen3-MoE model with this many experts (default 0)" },
  { flag: "--seed", key: "seed", minimum: 0, help: "seed of the random weights (default 0)" },
];

export function registerModelCommands(program: Command): void {
  const model = program.command("model").description("model checkpoints");
  const initTiny = model
    .command("init-tiny")
    .description("write a tiny Qwen3-style checkpoint (random weights, a tokenizer trained on the project's text, a chat template)")
    .argument("<directory>", "checkpoint directory to write");
  for (const option of SHAPE_OPTIONS) {
    initTiny.option(`${option.flag} <n>`, option.help, (text: string) => integerOption(option.flag, text, option.minimum));
  }
  initTiny
    .option("--tie-embeddings", "tie the output layer to the input embedding")
    .option("--python <interpreter>", "Python interpreter (default: TRACE_PYTHON, else .venv/bin/python)")
    .action(async (directory: string, options: TinyModelShape & { python?: string }) => {
      checkDirectoryPath(directory, "checkpoint directory");
      const shape: TinyModelShape = {};
      for (const option of SHAPE_OPTIONS) {
        const value = options[option.key];
        if (value !== undefined) shape[option.key] = value;
      }
      if (options.tieEmbeddings === true) shape.tieEmbeddings = true;
      await createTinyCheckpoint(directory, shape, { python: options.python });
    });
}
