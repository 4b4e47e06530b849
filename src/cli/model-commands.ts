/**
 * `trace model init-tiny DIR`: a tiny Qwen3-style checkpoint with random weights, written by the Python worker.
 * `trace model mechanics DIR`: a TRACE-mini base checkpoint's mechanics on held-out flawless demonstrations, and its
 * identifier copying in its own sampled episodes on the same seeds.
 */
import type { Command } from "commander";
import { createTinyCheckpoint, type TinyModelShape } from "../worker/tiny-checkpoint.js";
import { checkDirectoryPath } from "../run/path-checks.js";
import { integerOption, numberOption } from "./integer-option.js";
import { HELD_OUT_MECHANICS_DEFAULTS, measureCheckpointMechanics, mechanicsSummary } from "../pipeline/base-stage.js";
import { UsageError } from "./usage-error.js";
import { MINI_FAMILIES, type MiniFamily } from "../envs/mini/index.js";

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

  model
    .command("mechanics")
    .description("a TRACE-mini base checkpoint's mechanics on held-out demonstrations of a flawless expert: well-formed tool calls and exactly copied identifiers, greedy, at every expert turn, and identifiers copied in its own episodes sampled on the same seeds (as the base stage measures them)")
    .argument("<directory>", "checkpoint directory (a run's model/, or one shipped in models/)")
    .option("--demonstrations <n>", "held-out demonstrations", (text: string) => integerOption("--demonstrations", text, 1), HELD_OUT_MECHANICS_DEFAULTS.demonstrations)
    .option("--seed-start <n>", "first demonstration seed (after the shipped base's 12,000 SFT seeds)", (text: string) => integerOption("--seed-start", text, 0), HELD_OUT_MECHANICS_DEFAULTS.seedStart)
    .option("--families <list>", "comma-separated task families", HELD_OUT_MECHANICS_DEFAULTS.families.join(","))
    .option("--max-steps <n>", "steps per demonstration", (text: string) => integerOption("--max-steps", text, 1), HELD_OUT_MECHANICS_DEFAULTS.maxSteps)
    .option("--max-tokens <n>", "tokens per answer", (text: string) => integerOption("--max-tokens", text, 1), HELD_OUT_MECHANICS_DEFAULTS.maxTokens)
    .option("--samples <n>", "the model's own episodes per seed, sampled, where identifier copying is counted again (0 skips them)", (text: string) => integerOption("--samples", text, 0), HELD_OUT_MECHANICS_DEFAULTS.samples)
    .option("--temperature <t>", "temperature of those episodes (1 as GRPO samples)", (text: string) => numberOption("--temperature", text, { minimum: 0 }), HELD_OUT_MECHANICS_DEFAULTS.temperature)
    .option("--json", "print the report as JSON")
    .option("--python <interpreter>", "Python interpreter (default: TRACE_PYTHON, else .venv/bin/python)")
    .action(async (directory: string, options: { demonstrations: number; seedStart: number; families: string; maxSteps: number; maxTokens: number; samples: number; temperature: number; json?: boolean; python?: string }) => {
      const families = options.families.split(",").map((family) => family.trim());
      const unknown = families.find((family) => !(MINI_FAMILIES as readonly string[]).includes(family));
      if (unknown !== undefined) throw new UsageError(`--families: unknown family "${unknown}" (known: ${MINI_FAMILIES.join(", ")})`);
      const { json, ...settings } = options;
      const report = await measureCheckpointMechanics(directory, { ...settings, families: families as MiniFamily[] });
      console.log(json === true ? JSON.stringify(report) : mechanicsSummary(report));
    });
}
