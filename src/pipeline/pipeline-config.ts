/**
 * The `trace run CONFIG` configuration: a JSON file validated with zod. Relative paths are resolved against the
 * current directory. Unset fields take the defaults below (those of the offline tiny configuration).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { PipelineConfigError } from "./pipeline-config-error.js";

const positiveInteger = z.number().int().positive();

const tinyShapeSchema = z.strictObject({
  vocabSize: positiveInteger.optional(),
  hiddenSize: positiveInteger.optional(),
  layers: positiveInteger.optional(),
  attentionHeads: positiveInteger.optional(),
  keyValueHeads: positiveInteger.optional(),
  headDim: positiveInteger.optional(),
  intermediateSize: positiveInteger.optional(),
  experts: z.number().int().nonnegative().optional(),
  seed: z.number().int().nonnegative().optional(),
});

export const pipelineConfigSchema = z.strictObject({
  /** Run name; the run directory defaults to `runs/<name>`. */
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only"),
  runDirectory: z.string().min(1).optional(),
  model: z.strictObject({
    /** A Hugging Face checkpoint directory; default `<run>/model`. */
    path: z.string().min(1).optional(),
    /** When the checkpoint is missing, create a tiny random one of this shape (`trace model init-tiny`); without it a missing checkpoint is an error. */
    initTiny: tinyShapeSchema.optional(),
    servedModelName: z.string().min(1).default("base"),
  }),
  worker: z
    .strictObject({
      /** Python interpreter with the worker's requirements (default: .venv/bin/python or TRACE_PYTHON). */
      python: z.string().min(1).optional(),
      /** Extra `trace_worker serve` arguments (e.g. ["--no-cuda-graphs"]). */
      extraArguments: z.array(z.string()).default([]),
      startupTimeoutSeconds: positiveInteger.default(600),
    })
    .default({ extraArguments: [], startupTimeoutSeconds: 600 }),
  target: z.strictObject({
    /** τ²-bench's `data/tau2` (one sub-directory per domain). */
    dataDirectory: z.string().min(1),
    domains: z.array(z.enum(["airline", "retail"])).min(1),
    /** The first N tasks of each domain (τ²'s order); all when unset. */
    tasksPerDomain: positiveInteger.optional(),
    trials: positiveInteger.default(1),
    user: z.literal("scripted").default("scripted"),
    maxSteps: positiveInteger.default(50),
    maxTokens: positiveInteger.optional(),
    temperature: z.number().nonnegative().default(0),
    concurrency: positiveInteger.default(4),
    seed: z.number().int().nonnegative().default(0),
  }),
  analysis: z
    .strictObject({
      labeler: z.literal("reference").default("reference"),
      coverage: z.number().min(0).max(1).default(0.1),
      gap: z.number().min(-1).max(1).default(0.2),
    })
    .default({ labeler: "reference", coverage: 0.1, gap: 0.2 }),
  environments: z.strictObject({
    source: z.literal("hand-written").default("hand-written"),
    /** Kept capability → hand-written module (`CAPABILITY_ENVIRONMENTS`' capability names); unmapped ones are reported and skipped. */
    map: z.record(z.string(), z.string()),
    /** Seeds whose ground-truth solution must reach reward 1 (validation), the first also gives the routing example. */
    validationSeeds: z.array(z.number().int().nonnegative()).min(1).default([0, 1, 2]),
  }),
  training: z
    .strictObject({
      iterations: positiveInteger.default(40),
      groups: positiveInteger.default(8),
      samples: positiveInteger.default(8),
      learningRate: z.number().positive().default(1e-5),
      rank: positiveInteger.default(16),
      maxTokens: positiveInteger.optional(),
      maxSteps: positiveInteger.optional(),
      temperature: z.number().nonnegative().default(1),
      concurrency: positiveInteger.default(8),
      checkpointEvery: positiveInteger.default(5),
      /** Training seeds are 0 … seeds − 1 of each capability environment. */
      seeds: positiveInteger.default(100),
    })
    .default({ iterations: 40, groups: 8, samples: 8, learningRate: 1e-5, rank: 16, temperature: 1, concurrency: 8, checkpointEvery: 5, seeds: 100 }),
  routing: z
    .strictObject({
      /** One per option, in order: the capabilities' labels, then "none of these"'s; default "A", "B", …. */
      labels: z.array(z.string().min(1)).optional(),
    })
    .default({}),
  evaluation: z
    .strictObject({
      /** Held-out seeds of each capability environment for the adapter's before/after reward. */
      heldOutSeeds: z.array(z.number().int().nonnegative()).min(1).default([1000, 1001, 1002, 1003]),
      maxTokens: positiveInteger.optional(),
      maxSteps: positiveInteger.optional(),
    })
    .default({ heldOutSeeds: [1000, 1001, 1002, 1003] }),
});

/** A validated configuration with defaults applied. */
export type PipelineConfig = z.infer<typeof pipelineConfigSchema>;

/** The configuration with paths made absolute: what `config.json` of the run holds. */
export type ResolvedPipelineConfig = PipelineConfig & { runDirectory: string; model: PipelineConfig["model"] & { path: string } };

/** Validates a parsed configuration; every problem is reported with its field path. */
export function parsePipelineConfig(value: unknown, file: string, options: { runDirectory?: string } = {}): ResolvedPipelineConfig {
  const result = pipelineConfigSchema.safeParse(value);
  if (!result.success) {
    throw new PipelineConfigError(
      file,
      result.error.issues.map((issue) => `${issue.path.length === 0 ? "(top level)" : issue.path.join(".")}: ${issue.message}`),
    );
  }
  const config = result.data;
  const runDirectory = path.resolve(options.runDirectory ?? config.runDirectory ?? path.join("runs", config.name));
  return {
    ...config,
    runDirectory,
    model: { ...config.model, path: path.resolve(config.model.path ?? path.join(runDirectory, "model")) },
    target: { ...config.target, dataDirectory: path.resolve(config.target.dataDirectory) },
  };
}

/** Reads and validates a configuration file. */
export function loadPipelineConfig(file: string, options: { runDirectory?: string } = {}): ResolvedPipelineConfig {
  if (!existsSync(file)) throw new PipelineConfigError(file, ["no such file"]);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new PipelineConfigError(file, [`not JSON (${error instanceof Error ? error.message : String(error)})`]);
  }
  return parsePipelineConfig(value, file, options);
}
