/**
 * The `trace run CONFIG` configuration: a JSON file validated with zod. Relative paths are resolved against the
 * current directory. Unset fields take the defaults below (those of the offline tiny configuration).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { COMPARE_METHODS } from "../compare/compare-methods.js";
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
  tieEmbeddings: z.number().int().min(0).max(1).optional(),
});

/** The `compare` section: `trace compare` (and the pipeline's last stage when present). */
export const compareConfigSchema = z
  .strictObject({
    methods: z.array(z.enum(COMPARE_METHODS)).min(1).default([...COMPARE_METHODS]),
    /** Training seeds; every method is trained once per seed. */
    seeds: z.array(z.number().int().nonnegative()).min(1).default([0]),
    /** Training seeds run at once, each on its own worker process (one GPU serves several tiny-model workers). */
    parallelSeeds: positiveInteger.default(1),
    /** Points of the budget-vs-score curve after 0 (e.g. 2 → half and all of the budget). */
    curvePoints: positiveInteger.default(2),
    /** Evaluation episodes per task, each with its own sampling seed. */
    evaluationTrials: positiveInteger.default(1),
    temperature: z.number().nonnegative().default(0),
    /** GEPA's reflection model (OpenAI-compatible); default: the base model on the worker. */
    reflection: z.strictObject({ baseUrl: z.string().url(), model: z.string().min(1), apiKey: z.string().optional() }).optional(),
    /** SFT baseline settings. */
    sft: z.strictObject({ epochs: positiveInteger.default(2), batchSize: positiveInteger.default(8), learningRate: z.number().positive().default(1e-4) }).default({ epochs: 2, batchSize: 8, learningRate: 1e-4 }),
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
    /**
     * `mini` targets: make the base agent by supervised fine-tuning of the tiny checkpoint on the scripted expert's
     * demonstrations (with its documented deficits), merged into the weights at `path` (the base stage).
     */
    sft: z
      .strictObject({
        /** Expert episodes on seeds demonstrationSeedStart … + demonstrations − 1 (disjoint from training and evaluation seeds). */
        demonstrations: positiveInteger.default(400),
        demonstrationSeedStart: z.number().int().nonnegative().default(1_000_000),
        /** Probability per episode that the expert skips each behaviour (src/envs/mini/scripted-expert.ts). */
        deficits: z.record(z.string(), z.number().min(0).max(1)).optional(),
        epochs: positiveInteger.default(3),
        batchSize: positiveInteger.default(16),
        learningRate: z.number().positive().default(2e-3),
        /** LoRA rank of the SFT adapter; at least the hidden size makes it full-rank on every projection. */
        rank: positiveInteger.default(64),
        /**
         * After the epochs above, more epochs on fresh demonstrations (the seeds right after the first block) with the
         * same adapter: a tiny model learns to copy identifiers only after many passes over one set, and then
         * overfits it; fresh data brings the held-out loss down.
         */
        refresh: z
          .strictObject({
            demonstrations: positiveInteger,
            epochs: positiveInteger.default(1),
            /** Default: `learningRate` above. */
            learningRate: z.number().positive().optional(),
          })
          .optional(),
      })
      .optional(),
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
  target: z
    .strictObject({
      /** `tau2`: τ²-bench domains from `dataDirectory`; `mini`: the procedurally generated TRACE-mini world (src/envs/mini). */
      kind: z.enum(["tau2", "mini"]).default("tau2"),
      /** τ²-bench's `data/tau2` (one sub-directory per domain); required for `tau2`. */
      dataDirectory: z.string().min(1).optional(),
      domains: z.array(z.enum(["airline", "retail"])).min(1).default(["airline", "retail"]),
      /** The first N tasks of each domain (τ²'s order); all when unset. */
      tasksPerDomain: positiveInteger.optional(),
      /** `mini`: the base rollouts (analysis) use seeds 0 … trainingSeeds − 1; evaluation uses held-out seeds from `evaluationSeedStart`. */
      trainingSeeds: positiveInteger.default(60),
      evaluationSeedStart: z.number().int().nonnegative().default(100_000),
      evaluationSeedCount: positiveInteger.default(60),
      trials: positiveInteger.default(1),
      user: z.literal("scripted").default("scripted"),
      maxSteps: positiveInteger.default(50),
      maxTokens: positiveInteger.optional(),
      temperature: z.number().nonnegative().default(0),
      concurrency: positiveInteger.default(4),
      seed: z.number().int().nonnegative().default(0),
    })
    .refine((target) => target.kind !== "tau2" || target.dataDirectory !== undefined, { message: "dataDirectory is required for a tau2 target", path: ["dataDirectory"] })
    .refine((target) => target.kind !== "mini" || target.evaluationSeedStart >= target.trainingSeeds, {
      message: "evaluationSeedStart must be at least trainingSeeds (evaluation seeds are held out)",
      path: ["evaluationSeedStart"],
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
      /** `model`: the base model scores one-token labels (the paper's router); `retrieval`: nearest synthetic-environment requests (for models too small to classify). */
      method: z.enum(["model", "retrieval"]).default("model"),
      /** One per option, in order: the capabilities' labels, then "none of these"'s; default "A", "B", …. */
      labels: z.array(z.string().min(1)).optional(),
      /** `retrieval`: example requests per capability, from its environment's seeds 0 … N − 1. */
      examples: positiveInteger.default(40),
    })
    .default({ method: "model", examples: 40 }),
  evaluation: z
    .strictObject({
      /** Held-out seeds of each capability environment for the adapter's before/after reward. */
      heldOutSeeds: z.array(z.number().int().nonnegative()).min(1).default([1000, 1001, 1002, 1003]),
      maxTokens: positiveInteger.optional(),
      maxSteps: positiveInteger.optional(),
    })
    .default({ heldOutSeeds: [1000, 1001, 1002, 1003] }),
  /** `trace compare` (and the pipeline's last stage when present): methods under one rollout budget. */
  compare: compareConfigSchema.optional(),
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
    target: { ...config.target, ...(config.target.dataDirectory === undefined ? {} : { dataDirectory: path.resolve(config.target.dataDirectory) }) },
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
