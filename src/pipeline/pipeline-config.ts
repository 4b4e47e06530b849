/**
 * The `trace run CONFIG` configuration: a JSON file validated with zod. Relative paths are resolved against the
 * current directory. Unset fields take the defaults below (those of the offline tiny configuration).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { COMPARE_METHODS } from "../compare/compare-methods.js";
import { MINI_FAMILIES } from "../envs/mini/mini-service-module.js";
import { openRunDirectory } from "../run/run-directory.js";
import { grpoMechanismsSchema } from "../training/grpo-mechanisms.js";
import { PipelineConfigError } from "./pipeline-config-error.js";

const positiveInteger = z.number().int().positive();
/** A capability adapter's weight in a TIES merge: above 0, at most 4 (a larger factor is more likely a typo than a choice). */
const mergeWeightSchema = z.number().gt(0).max(4);

const tinyShapeSchema = z.strictObject({
  vocabSize: positiveInteger.optional(),
  hiddenSize: positiveInteger.optional(),
  layers: positiveInteger.optional(),
  attentionHeads: positiveInteger.optional(),
  keyValueHeads: positiveInteger.optional(),
  headDim: positiveInteger.optional(),
  intermediateSize: positiveInteger.optional(),
  experts: z.number().int().nonnegative().optional(),
  maxPositions: positiveInteger.optional(),
  seed: z.number().int().nonnegative().optional(),
  tieEmbeddings: z.boolean().optional(),
});

/** The `compare` section: `trace compare` (and the pipeline's last stage when present). */
export const compareConfigSchema = z
  .strictObject({
    methods: z.array(z.enum(COMPARE_METHODS)).min(1).default([...COMPARE_METHODS]),
    /** Training seeds; every method is trained once per seed. */
    seeds: z.array(z.number().int().nonnegative()).min(1).default([0]),
    /** Training seeds run at once, each on its own worker process (one GPU serves several tiny-model workers). */
    parallelSeeds: positiveInteger.default(1),
    /**
     * Methods of one seed run at once on the seed's worker [1]: the worker batches their sampling together, so on a
     * tiny model (where a decode step costs about the same for one request as for many) methods that mostly wait on
     * sequential episodes — GEPA above all — overlap. Merge waits for TRACE, whose adapters it merges.
     */
    parallelMethods: positiveInteger.default(1),
    /**
     * Every method's rollout budget per seed ["trace"]: `"trace"`, what TRACE spent on that seed (training rollouts,
     * dynamic sampling's extra rounds included), so that every method samples at most as many rollouts as TRACE did
     * (TRACE runs first, the others after it); `"allowance"`, the most TRACE could have spent (capabilities ×
     * iterations × G × K × (1 + dynamic sampling's extra rounds)), which lets a method outspend TRACE.
     */
    budget: z.enum(["trace", "allowance"]).default("trace"),
    /** Points of the budget-vs-score curve after 0 (e.g. 2 → half and all of the budget). */
    curvePoints: positiveInteger.default(2),
    /** SFT baseline settings. */
    sft: z.strictObject({ epochs: positiveInteger.default(2), batchSize: positiveInteger.default(8), learningRate: z.number().positive().default(1e-4) }).prefault({}),
    /**
     * GEPA baseline settings: training tasks per reflective minibatch [3, gepa's default], the reflection reply's
     * token limit [512], and reflective mutations run at once [1, gepa's sequential loop]. Each iteration evaluates the
     * minibatch twice and waits for one reflection, one after another, so at a budget of thousands of episodes a
     * minibatch of 3 means hundreds of sequential reflections; `proposalsPerRound` lanes share each of those waits (each
     * lane starts from the pool as its round found it).
     */
    gepa: z
      .strictObject({ minibatchSize: positiveInteger.default(3), reflectionMaxTokens: positiveInteger.default(512), proposalsPerRound: positiveInteger.default(1) })
      .prefault({}),
    /**
     * The merge baseline's TIES merge, as `routing.mergeWeight` and `routing.mergeRank`: each capability adapter's
     * weight [unset: 1/n, the disjoint mean] and the merged adapter's rank [unset: the sum of the sources' ranks].
     */
    merge: z.strictObject({ weight: mergeWeightSchema.optional(), rank: positiveInteger.optional() }).prefault({}),
  });

/** How many expert demonstrations base SFT plays, on seeds `demonstrationSeedStart` onwards: the first set and the refresh's. */
export function demonstrationSeedCount(sft: { demonstrations: number; refresh?: { demonstrations: number } | undefined }): number {
  return sft.demonstrations + (sft.refresh?.demonstrations ?? 0);
}

/** The first seed of the base's correction episodes (`model.sft.corrections`): right after the demonstrations and the held-out mechanics seeds. */
export function correctionSeedStart(sft: { demonstrationSeedStart: number; demonstrations: number; refresh?: { demonstrations: number } | undefined; mechanicsDemonstrations: number }): number {
  return sft.demonstrationSeedStart + demonstrationSeedCount(sft) + sft.mechanicsDemonstrations;
}

/** The `trace_worker serve` arguments a configuration's worker section asks for. */
export function workerServeArguments(worker: ResolvedPipelineConfig["worker"]): string[] {
  return [...(worker.deterministic ? ["--deterministic"] : []), ...worker.extraArguments];
}

/** A named OpenAI-compatible endpoint; its API key is read from the environment variable `apiKeyEnv`, never stored. */
const endpointSchema = z.strictObject({
  /** Base URL ending in `/v1` (vLLM, SGLang, OpenAI, …). */
  url: z.string().url(),
  model: z.string().min(1),
  /** Name of the environment variable holding the API key (none: no key sent). */
  apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name").optional(),
  /** Requests in flight at once. */
  maxConcurrency: positiveInteger.default(16),
  timeoutSeconds: positiveInteger.default(600),
});

/** An MCP target: the server (a stdio command or a streamable-HTTP URL), the tasks file, state reset and the grader. */
const mcpTargetSchema = z
  .strictObject({
    /** The environment's name in stores and reports. */
    name: z.string().regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only").default("mcp"),
    /** A stdio server: the command and its arguments (started by trace; the MCP server speaks on stdin/stdout). */
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    /** A streamable-HTTP server's URL instead of a command. */
    url: z.string().url().optional(),
    /** Tasks: a JSON list or JSON lines of `{id, instructions, userMessages?, split?, rubric?, data?}`. */
    tasksFile: z.string().min(1),
    /** The agent's policy text (shown to the agent and to the environment generator). */
    policyFile: z.string().min(1).optional(),
    /** `restart` (a server per episode), `shared` (one server, no reset) or `{resetTool}` (one server, reset before each episode). */
    state: z.union([z.enum(["restart", "shared"]), z.strictObject({ resetTool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) })]),
    /** Server tools the agent is not offered (e.g. a state export the grader reads). */
    hiddenTools: z.array(z.string().min(1)).default([]),
    /** `{module}`: a grader module (default export `grade(input)`); `{judge}`: an LLM judge on the `judge` role with each task's rubric. */
    grader: z.union([z.strictObject({ module: z.string().min(1) }), z.strictObject({ judge: z.strictObject({ temperature: z.number().nonnegative().default(0) }) })]),
    callTimeoutSeconds: positiveInteger.default(60),
  })
  .refine((mcp) => (mcp.command === undefined) !== (mcp.url === undefined), { message: "give exactly one of command (a stdio server) and url (an HTTP server)", path: ["command"] });

/** The model roles; each names an endpoint of `endpoints` (`worker`: the run's own worker, for `policy` and `router`). */
export const ROLES = ["policy", "user", "analyst", "generator", "reflection", "router", "judge"] as const;
export type Role = (typeof ROLES)[number];
/** The reserved endpoint name of the run's worker. */
export const WORKER_ENDPOINT = "worker";

const rolesSchema = z
  .strictObject({
    /** Samples the agent: `worker` (default), or an endpoint that loads adapters by name (`/v1/load_lora_adapter`, e.g. vLLM with `--enable-lora`); the worker then only trains. */
    policy: z.string().min(1).default(WORKER_ENDPOINT),
    /** τ²'s LLM user simulator (`target.user: "llm"`). */
    user: z.string().min(1).optional(),
    /** The capability analyst (`analysis.labeler: "llm"`). */
    analyst: z.string().min(1).optional(),
    /** Writes capability environments (`environments.source: "generated"`). */
    generator: z.string().min(1).optional(),
    /** GEPA's reflection model in `compare` (default: the policy's base model). */
    reflection: z.string().min(1).optional(),
    /** Scores routing labels (needs `logprob_token_ids` and `/tokenize`): `worker` (default) or an endpoint. */
    router: z.string().min(1).default(WORKER_ENDPOINT),
    /** Grades an MCP target's episodes against each task's rubric (`target.mcp.grader.judge`). */
    judge: z.string().min(1).optional(),
  })
  .prefault({});

/** Calibration of a generated environment on the base policy (TRACE reference code's statistics). */
const calibrationSchema = z.strictObject({
  /** Seeds, one group each. */
  seeds: positiveInteger.default(16),
  /** Rollouts per seed, K. */
  samples: positiveInteger.default(16),
  /**
   * Sampling temperature; default `training.temperature` (filled in below): the gate's group statistics say whether GRPO
   * will get a signal, so they are read at the temperature GRPO samples at (0.7 before the twelfth TRACE-mini session).
   */
  temperature: z.number().nonnegative().optional(),
  /** Most rounds of `seeds` × `samples` per level (another runs on the next seeds while a reading is near a window edge; see `standardErrors`). */
  rounds: positiveInteger.default(1),
  /**
   * How many standard errors (over seeds) make a difference real: a reading within this many of a window edge takes
   * another round (up to `rounds`), and calibration leaves a module's initial difficulty level only for a level nearer
   * the window by more than this many. 0: point estimates, as the reference.
   */
  standardErrors: z.number().nonnegative().default(0),
  /**
   * Whether a difficulty level whose mean is in the window but whose groups are all 0 (all 1) too often moves the
   * level search easier (harder); false: the search stops at such a level, as in every TRACE-mini run so far.
   */
  steerByExtremeGroups: z.boolean().default(false),
  minimumMeanReward: z.number().min(0).max(1).default(0.2),
  maximumMeanReward: z.number().min(0).max(1).default(0.6),
  minimumSuccessRate: z.number().min(0).max(1).default(0.2),
  maximumSuccessRate: z.number().min(0).max(1).default(0.6),
  minimumRewardStd: z.number().min(0).default(0.05),
  maximumAllZeroFraction: z.number().min(0).max(1).default(0.2),
  maximumAllOneFraction: z.number().min(0).max(1).default(0.2),
  maximumConstantFraction: z.number().min(0).max(1).default(0.5),
  minimumInformativeFraction: z.number().min(0).max(1).default(0.5),
});

const pipelineConfigSchema = z.strictObject({
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
        /**
         * The learning rate over all SFT steps (the refresh epochs' included; their peak is `refresh.learningRate`):
         * linear warmup, then constant or a cosine decay to `floor` × the peak. Default: constant, no warmup.
         */
        schedule: z
          .strictObject({
            warmupSteps: z.number().int().nonnegative().default(0),
            decay: z.enum(["constant", "cosine"]).default("cosine"),
            floor: z.number().min(0).max(1).default(0.1),
          })
          .optional(),
        /**
         * The base's breadth: this share of the demonstrations is played in the practice worlds (the wording and
         * families of `MINI_CAPABILITY_MODULES`, at a difficulty level drawn per seed), the rest in the target world,
         * with the same deficits everywhere — as a pretrained model has seen requests worded many ways. 0: target only.
         */
        practiceShare: z.number().min(0).max(0.9).default(0),
        /**
         * Start from this checkpoint (weights and tokenizer) instead of a tiny random one: more SFT on a base that
         * exists, e.g. to give it breadth (`practiceShare`). Default: `initTiny`'s random checkpoint.
         */
        initialCheckpoint: z.string().min(1).optional(),
        /** Visit the demonstrations in a new seeded order every epoch (seed: `target.seed` and the epoch) rather than in seed order. */
        shuffle: z.boolean().default(false),
        /** LoRA rank of the SFT adapter; at least the hidden size makes it full-rank on every projection. */
        rank: positiveInteger.default(64),
        /**
         * The tokenizer makes every digit a token of its own, as Qwen's does: the tiny model copies identifiers digit by
         * digit (learned early) instead of memorising each as a whole token (learned after a long plateau, if at all).
         */
        splitDigits: z.boolean().default(false),
        /** Held-out flawless demonstrations the trained base's mechanics are measured on (`base/sft.json`); 0 skips it. */
        mechanicsDemonstrations: z.number().int().nonnegative().default(20),
        /**
         * The base's own episodes sampled on the same held-out seeds (this many per seed, at `training.temperature`),
         * where identifier copying is counted again: a base can copy exactly when teacher-forced and not after its own
         * sampled turns, which is where GRPO samples. 0 skips it.
         */
        mechanicsSamples: z.number().int().nonnegative().default(4),
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
        /**
         * Rounds of corrections after every epoch above (DAgger, Ross et al. 2011): the base plays `episodes` fresh seeds
         * itself (sampled at `temperature`; worlds drawn as the demonstrations' are), the expert labels every state the
         * base reached with its own next action (its deficits drawn per episode as in its demonstrations), and the
         * adapter trains `epochs` on those labels, the base's own turns as context and the expert's as the target. It
         * teaches the base to act from conversations it reaches itself, which demonstrations never show (an id it
         * garbled, a call the tools refused). Seeds: right after the mechanics seeds, `episodes` a round.
         */
        corrections: z
          .strictObject({
            rounds: positiveInteger.default(1),
            episodes: positiveInteger,
            epochs: positiveInteger.default(1),
            /** Default: the schedule's last rate (`learningRate` × `schedule.floor`), else `learningRate`. */
            learningRate: z.number().positive().optional(),
            /** Default: `training.temperature`. */
            temperature: z.number().nonnegative().optional(),
            /**
             * Which states are trained on: "all" (DAgger, labelled by the expert with its deficits), or "copying": only
             * those where the base wrote an identifier not in its conversation and the flawless expert's action there is
             * the same kind (the same tool, or a reply), labelled by that expert — the copying corrected, no decision
             * taught. With "all", the deficits teach decisions the demonstrations never show (cancelling an order after
             * looking up that it was delivered).
             */
            states: z.enum(["all", "copying"]).default("all"),
          })
          .optional(),
        /**
         * Tail averaging (in the spirit of stochastic weight averaging, Izmailov et al. 2018): the adapter is saved after
         * each of the last N epochs and the base is the mean of those N adapters' weight deltas (a linear merge through
         * the trainer's `merge_adapters`, refactorised at `rank`: exact where `rank` reaches a projection's smaller side).
         * Points late on one training trajectory average to one nearby point; adapters from different trajectories do
         * not (their mean copies nothing). Unset: the last epoch's adapter. Not combined with `refresh` or `corrections`.
         */
        averageLastEpochs: z.number().int().min(2).optional(),
      })
      .superRefine((sft, context) => {
        if (sft.averageLastEpochs === undefined) return;
        if (sft.averageLastEpochs > sft.epochs) context.addIssue({ code: "custom", path: ["averageLastEpochs"], message: `${sft.averageLastEpochs} is more than model.sft.epochs (${sft.epochs})` });
        for (const key of ["refresh", "corrections"] as const) {
          if (sft[key] !== undefined) context.addIssue({ code: "custom", path: ["averageLastEpochs"], message: `cannot be combined with model.sft.${key} (the average is of the main epochs' last adapters)` });
        }
      })
      .transform(({ refresh, ...sft }) => ({ ...sft, ...(refresh === undefined ? {} : { refresh: { ...refresh, learningRate: refresh.learningRate ?? sft.learningRate } }) }))
      .optional(),
  }),
  worker: z
    .strictObject({
      /** Python interpreter with the worker's requirements (default: .venv/bin/python or TRACE_PYTHON). */
      python: z.string().min(1).optional(),
      /** Extra `trace_worker serve` arguments (e.g. ["--no-cuda-graphs"]). */
      extraArguments: z.array(z.string()).default([]),
      /**
       * Run every trainer call with PyTorch's deterministic algorithms and a fixed cuBLAS workspace (`serve
       * --deterministic`) [false]: the same trainer calls then give the same weights run after run on one machine.
       * Sampling under continuous batching still depends on which requests decode together, so rollouts can differ in
       * their last bits.
       */
      deterministic: z.boolean().default(false),
      /** GPUs (one process each, under torchrun) the worker trains on: every trainer call's datums are split across them. */
      gpus: positiveInteger.default(1),
      startupTimeoutSeconds: positiveInteger.default(600),
    })
    .prefault({}),
  target: z
    .strictObject({
      /**
       * `tau2`: τ²-bench domains from `dataDirectory`; `mini`: the procedurally generated TRACE-mini world (src/envs/mini);
       * `module`: the user's own target module (`module`); `mcp`: the tools of an MCP server (`mcp`). See docs/own-environment.md.
       * `toolsandbox`: ToolSandbox's scenarios from `dataDirectory` (the directory with `scenarios.json.gz`; docs/toolsandbox.md).
       */
      kind: z.enum(["tau2", "mini", "module", "mcp", "toolsandbox"]).default("tau2"),
      /** `toolsandbox`: the tool augmentations whose scenarios are used (default: `none`, the 129 root scenarios). */
      augmentations: z.array(z.string().min(1)).min(1).default(["none"]),
      /** `module`: the target module's file (TypeScript or JavaScript exporting the `TargetModule` interface of `trace-agent/target`). */
      module: z.string().min(1).optional(),
      /** `mcp`: the server, the tasks, how state is reset and how episodes are graded. */
      mcp: mcpTargetSchema.optional(),
      /** τ²-bench's `data/tau2` (one sub-directory per domain); required for `tau2`. */
      dataDirectory: z.string().min(1).optional(),
      domains: z.array(z.enum(["airline", "retail"])).min(1).default(["airline", "retail"]),
      /** The first N tasks of each domain (τ²'s order); all when unset. */
      tasksPerDomain: positiveInteger.optional(),
      /** `mini`: the base rollouts (analysis) use seeds 0 … trainingSeeds − 1; evaluation uses held-out seeds from `evaluationSeedStart`. */
      trainingSeeds: positiveInteger.default(60),
      /**
       * `mini`: the task families the target draws from (uniformly). `composite` tasks ask for two or three things at
       * once (cancellations that may be refused, payment changes) and pass only if every part is right, as τ² tasks do.
       */
      families: z.array(z.enum(MINI_FAMILIES)).min(1).default(["precondition", "payment", "multi_cancel"]),
      evaluationSeedStart: z.number().int().nonnegative().default(100_000),
      evaluationSeedCount: positiveInteger.default(60),
      trials: positiveInteger.default(1),
      /** `scripted`: the task's instructions are the user's first message (offline); `llm`: τ²-bench's LLM user simulator on the `user` role's endpoint. */
      user: z.enum(["scripted", "llm"]).default("scripted"),
      /** τ²-bench's `user_simulator` guidelines directory (default: beside the domains, `<dataDirectory>/user_simulator`). */
      userGuidelines: z.string().min(1).optional(),
      userTemperature: z.number().nonnegative().default(0),
      maxSteps: positiveInteger.default(50),
      maxTokens: positiveInteger.optional(),
      temperature: z.number().nonnegative().default(0),
      concurrency: positiveInteger.default(4),
      seed: z.number().int().nonnegative().default(0),
    })
    .refine((target) => target.kind !== "tau2" || target.dataDirectory !== undefined, { message: "dataDirectory is required for a tau2 target", path: ["dataDirectory"] })
    .refine((target) => target.kind !== "toolsandbox" || target.dataDirectory !== undefined, { message: "dataDirectory (with scenarios.json.gz) is required for a toolsandbox target", path: ["dataDirectory"] })
    .refine((target) => target.kind !== "module" || target.module !== undefined, { message: "module (the target module's file) is required for a module target", path: ["module"] })
    .refine((target) => target.kind !== "mcp" || target.mcp !== undefined, { message: "mcp (server, tasksFile, state, grader) is required for an mcp target", path: ["mcp"] })
    .refine((target) => target.kind !== "mini" || target.evaluationSeedStart >= target.trainingSeeds, {
      message: "evaluationSeedStart must be at least trainingSeeds (evaluation seeds are held out)",
      path: ["evaluationSeedStart"],
    }),
  analysis: z
    .strictObject({
      /** `llm`: the paper's analyst on the `analyst` role's endpoint; `reference`: the offline reference-guided labeler. */
      labeler: z.enum(["reference", "llm"]).default("reference"),
      coverage: z.number().min(0).max(1).default(0.1),
      gap: z.number().min(-1).max(1).default(0.2),
      /** `llm`: labeling runs N. */
      runs: positiveInteger.default(10),
      /** `llm`: runs a capability must pass to be kept (default ⌈0.8·runs⌉, filled in below). */
      minRuns: positiveInteger.optional(),
      /** `llm`: the analyst's context window and reply size, in tokens. */
      contextTokens: positiveInteger.default(32_000),
      maxOutputTokens: positiveInteger.default(4096),
      batchSize: positiveInteger.default(8),
      maxAttempts: positiveInteger.default(3),
      temperature: z.number().nonnegative().default(0.7),
    })
    .prefault({})
    .transform((analysis) => ({ ...analysis, minRuns: analysis.minRuns ?? Math.ceil(0.8 * analysis.runs) })),
  environments: z
    .strictObject({
      /** `generated`: the generator role writes each environment (sandboxed, gated, calibrated); `hand-written`: `map`. */
      source: z.enum(["hand-written", "generated"]).default("hand-written"),
      /** `hand-written`: kept capability → module (`CAPABILITY_ENVIRONMENTS`' capability names); unmapped ones are reported and skipped. */
      map: z.record(z.string(), z.string()).default({}),
      /** Seeds whose ground-truth solution must reach reward 1 (validation), the first also gives the routing example. */
      validationSeeds: z.array(z.number().int().nonnegative()).min(1).default([0, 1, 2]),
      /** `generated`: generations per capability (each failing one's report is fed back). */
      maxAttempts: positiveInteger.default(5),
      /** `generated`: seeds the validation gates play. */
      gateSeeds: positiveInteger.default(100),
      temperature: z.number().nonnegative().default(0.7),
      calibration: calibrationSchema.prefault({}),
      /**
       * Calibrate hand-written modules too (on the base policy, with `calibration`): a module with difficulty levels (the
       * TRACE-mini practice modules) is trained at the level calibration picks. Generated modules are always calibrated.
       */
      calibrateHandWritten: z.boolean().default(false),
    })
    .prefault({}),
  training: z
    .strictObject({
      /** GRPO iterations per capability adapter (with `allocation` "coverage", the mean over the capabilities). */
      iterations: positiveInteger.default(40),
      /**
       * How TRACE's iterations (capabilities × `iterations` in all) are shared among its capability adapters ["equal"]:
       * `"equal"`, `iterations` each, as the paper; `"coverage"`, in proportion to each capability's Cov in the analysis
       * (the share of failed trajectories that lack it), at least one each. The total, and so every method's budget,
       * is the same either way.
       */
      allocation: z.enum(["equal", "coverage"]).default("equal"),
      /** Groups (seeds) per iteration, G. */
      groups: positiveInteger.default(8),
      /** Rollouts per group, K (16 as in the paper). */
      samples: positiveInteger.default(16),
      learningRate: z.number().positive().default(1e-5),
      /**
       * Learning rates of TRACE's capability adapters by capability, overriding `learningRate` (the train stage, and
       * `trace compare`'s TRACE and merge methods, which reuse its adapters); the single-adapter methods (GRPO on the
       * target, the mixture) train at `learningRate` [none].
       */
      learningRates: z.record(z.string().min(1), z.number().positive()).default({}),
      rank: positiveInteger.default(16),
      maxTokens: positiveInteger.optional(),
      maxSteps: positiveInteger.optional(),
      temperature: z.number().nonnegative().default(1),
      concurrency: positiveInteger.default(8),
      checkpointEvery: positiveInteger.default(5),
      /** Training seeds are 0 … seeds − 1 of each capability environment. */
      seeds: positiveInteger.default(100),
      /** GRPO's sampled episodes kept in the run's store (training episodes, for `trace dashboard` and `trace export --training`): every iteration's, none, or the last N iterations'. */
      keepRollouts: z.union([z.enum(["all", "none"]), positiveInteger]).default("all"),
      /** The reference trainer's mechanisms (`hints`, `dynamicSampling`, `dropInformationTurns`, `toolResultTruncation`), for every GRPO-based method alike. */
      ...grpoMechanismsSchema.shape,
    })
    .prefault({}),
  routing: z
    .strictObject({
      /** `model`: the base model scores one-token labels (the paper's router); `retrieval`: nearest synthetic-environment requests (for models too small to classify). */
      method: z.enum(["model", "retrieval"]).default("model"),
      /** One per option, in order: the capabilities' labels, then "none of these"'s; default "A", "B", …. */
      labels: z.array(z.string().min(1)).optional(),
      /** `retrieval`: example requests per capability, from its environment's seeds 0 … N − 1. */
      examples: positiveInteger.default(40),
      /**
       * `retrieval` only, off when unset: a request two or more of whose sentences each match a capability's examples
       * with this similarity or more asks for several things at once, and goes to the TIES merge of the capability
       * adapters (beyond the paper, which routes every task to one adapter; `docs/pipeline.md`, "Multi-part requests").
       */
      multiPartSimilarity: z.number().gt(0).max(1).optional(),
      /**
       * With `multiPartSimilarity`: `sentences` (two or more close sentences) or `capabilities` (close sentences of two
       * or more different capabilities; finds fewer, but does not move with the example corpus).
       */
      multiPartRule: z.enum(["sentences", "capabilities"]).default("sentences"),
      /**
       * With `multiPartSimilarity`: each capability adapter's weight in the TIES merge the multi-part option serves
       * (TRACE's, here and in `trace compare`; the merge baseline has its own, `compare.merge.weight`): unset, 1/n (the
       * disjoint mean: for three adapters each at a third of its strength); 1, each adapter's trimmed delta at full
       * strength where the signs agree (Yadav et al.'s λ = 1); above 1, the merged delta scaled up by that factor
       * (their λ, chosen on validation).
       */
      mergeWeight: mergeWeightSchema.optional(),
      /**
       * With `multiPartSimilarity`: the merged adapter's rank; unset, the sum of the sources' ranks (the worker's
       * default, exact for a linear merge). A TIES merge's trimmed deltas are not low-rank, so a truncation to that rank
       * drops part of the merge (the route stage logs the largest relative error); the model's width keeps all of it.
       */
      mergeRank: positiveInteger.optional(),
      /**
       * With `multiPartSimilarity`: `ties` (default: trim, elect signs, disjoint mean) or `linear` (the weighted sum of
       * the adapters' deltas, nothing trimmed; at weight 1 and the default rank, all adapters applied at once, exactly).
       */
      mergeMethod: z.enum(["ties", "linear"]).optional(),
      /** With `multiPartSimilarity` and a TIES merge: the share of each adapter's entries kept; unset, the worker's 0.2. */
      mergeDensity: z.number().gt(0).max(1).optional(),
    })
    .prefault({}),
  /** How every policy is evaluated, by the evaluate stage and by `trace compare` alike (`evaluation-episodes.ts`). */
  evaluation: z
    .strictObject({
      /** Held-out seeds of each capability environment for the adapter's before/after reward. */
      heldOutSeeds: z.array(z.number().int().nonnegative()).min(1).default([1000, 1001, 1002, 1003]),
      /** Episodes per evaluation task, each with its own sampling seed. */
      trials: positiveInteger.default(1),
      temperature: z.number().nonnegative().default(0),
      /** Default: `target.maxTokens` (filled in below). */
      maxTokens: positiveInteger.optional(),
      /** Default: `target.maxSteps` (filled in below). */
      maxSteps: positiveInteger.optional(),
    })
    .prefault({}),
  /** `trace compare` (and the pipeline's last stage when present): methods under one rollout budget. */
  compare: compareConfigSchema.optional(),
  /** Named OpenAI-compatible endpoints, assigned to model roles by `roles`. */
  endpoints: z.record(z.string().regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only"), endpointSchema).default({}),
  roles: rolesSchema,
}).superRefine((config, context) => {
  for (const role of ROLES) {
    const name = config.roles[role];
    if (name === undefined) continue;
    if (name === WORKER_ENDPOINT) {
      if (role !== "policy" && role !== "router") context.addIssue({ code: "custom", path: ["roles", role], message: `"worker" serves only the policy and router roles; define an endpoint for ${role}` });
    } else if (config.endpoints[name] === undefined) {
      context.addIssue({ code: "custom", path: ["roles", role], message: `endpoint ${JSON.stringify(name)} is not defined in endpoints (defined: ${Object.keys(config.endpoints).join(", ") || "none"})` });
    }
  }
  const needs = (condition: boolean, role: Role, why: string) => {
    if (condition && config.roles[role] === undefined) context.addIssue({ code: "custom", path: ["roles", role], message: `required: ${why}` });
  };
  needs(config.target.user === "llm", "user", 'target.user is "llm"');
  needs(config.analysis.labeler === "llm", "analyst", 'analysis.labeler is "llm"');
  needs(config.environments.source === "generated", "generator", 'environments.source is "generated"');
  const mcpGrader = config.target.mcp?.grader;
  needs(config.target.kind === "mcp" && mcpGrader !== undefined && "judge" in mcpGrader, "judge", "target.mcp.grader is an LLM judge");
  if ((config.target.kind === "module" || config.target.kind === "mcp") && config.analysis.labeler !== "llm") {
    context.addIssue({ code: "custom", path: ["analysis", "labeler"], message: `a ${config.target.kind} target needs the LLM analyst ("llm"; the reference labeler knows only τ², TRACE-mini and ToolSandbox)` });
  }
  if (config.analysis.minRuns !== undefined && config.analysis.minRuns > config.analysis.runs) context.addIssue({ code: "custom", path: ["analysis", "minRuns"], message: `${config.analysis.minRuns} is more than analysis.runs (${config.analysis.runs})` });
  if (config.routing.multiPartSimilarity !== undefined && config.routing.method !== "retrieval") context.addIssue({ code: "custom", path: ["routing", "multiPartSimilarity"], message: 'needs routing.method "retrieval" (the sentences of a request are matched against the capabilities\' example requests)' });
  // The base's SFT demonstrations are target tasks too (most of them): evaluating on their seeds would test the base on
  // tasks it was trained on.
  const sft = config.model.sft;
  if (sft !== undefined && config.target.kind === "mini") {
    const demonstrationEnd = sft.demonstrationSeedStart + demonstrationSeedCount(sft);
    const evaluationEnd = config.target.evaluationSeedStart + config.target.evaluationSeedCount;
    if (config.target.evaluationSeedStart < demonstrationEnd && sft.demonstrationSeedStart < evaluationEnd) {
      context.addIssue({ code: "custom", path: ["target", "evaluationSeedStart"], message: `evaluation seeds ${config.target.evaluationSeedStart}–${evaluationEnd - 1} overlap the base's SFT demonstrations (model.sft seeds ${sft.demonstrationSeedStart}–${demonstrationEnd - 1}): evaluate on tasks the base was not trained on` });
    }
    if (sft.corrections !== undefined) {
      const start = correctionSeedStart(sft);
      const end = start + sft.corrections.rounds * sft.corrections.episodes;
      if (config.target.evaluationSeedStart < end && start < evaluationEnd) {
        context.addIssue({ code: "custom", path: ["target", "evaluationSeedStart"], message: `evaluation seeds ${config.target.evaluationSeedStart}–${evaluationEnd - 1} overlap the base's correction episodes (model.sft.corrections seeds ${start}–${end - 1}): evaluate on tasks the base was not trained on` });
      }
    }
    if (sft.demonstrationSeedStart < config.target.trainingSeeds) context.addIssue({ code: "custom", path: ["model", "sft", "demonstrationSeedStart"], message: `${sft.demonstrationSeedStart} is below target.trainingSeeds (${config.target.trainingSeeds}): the demonstrations would include the analysed training tasks` });
  }
  if (config.routing.mergeWeight !== undefined && config.routing.multiPartSimilarity === undefined) context.addIssue({ code: "custom", path: ["routing", "mergeWeight"], message: "needs routing.multiPartSimilarity (the merged adapters serve multi-part requests only; the merge baseline's weight is compare.merge.weight)" });
  for (const key of ["mergeMethod", "mergeDensity"] as const) {
    if (config.routing[key] !== undefined && config.routing.multiPartSimilarity === undefined) context.addIssue({ code: "custom", path: ["routing", key], message: "needs routing.multiPartSimilarity (the merged adapters serve multi-part requests only)" });
  }
  if (config.routing.mergeDensity !== undefined && config.routing.mergeMethod === "linear") context.addIssue({ code: "custom", path: ["routing", "mergeDensity"], message: "is a TIES setting; a linear merge trims nothing" });
  if (config.routing.mergeRank !== undefined && config.routing.multiPartSimilarity === undefined) context.addIssue({ code: "custom", path: ["routing", "mergeRank"], message: "needs routing.multiPartSimilarity (the merged adapters serve multi-part requests only; the merge baseline's rank is compare.merge.rank)" });
  if (config.target.user === "llm" && config.target.kind === "mini") context.addIssue({ code: "custom", path: ["target", "user"], message: '"llm" is not available for a mini target (its users are scripted)' });
}).transform((config) => ({
  ...config,
  // Defaults taken from another section.
  evaluation: { ...config.evaluation, maxTokens: config.evaluation.maxTokens ?? config.target.maxTokens, maxSteps: config.evaluation.maxSteps ?? config.target.maxSteps },
  environments: { ...config.environments, calibration: { ...config.environments.calibration, temperature: config.environments.calibration.temperature ?? config.training.temperature } },
}));

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
    model: { ...config.model, path: path.resolve(config.model.path ?? openRunDirectory(runDirectory).defaultModelDirectory) },
    target: resolveTargetPaths(config.target),
  };
}

/** The target's file paths made absolute (against the current directory). */
function resolveTargetPaths(target: PipelineConfig["target"]): PipelineConfig["target"] {
  const absolute = (value: string | undefined) => (value === undefined ? undefined : path.resolve(value));
  const resolved = { ...target };
  if (target.dataDirectory !== undefined) resolved.dataDirectory = absolute(target.dataDirectory);
  if (target.module !== undefined) resolved.module = absolute(target.module);
  if (target.mcp !== undefined) {
    const { mcp } = target;
    resolved.mcp = {
      ...mcp,
      tasksFile: path.resolve(mcp.tasksFile),
      ...(mcp.policyFile === undefined ? {} : { policyFile: path.resolve(mcp.policyFile) }),
      ...(mcp.cwd === undefined ? {} : { cwd: path.resolve(mcp.cwd) }),
      grader: "module" in mcp.grader ? { module: path.resolve(mcp.grader.module) } : mcp.grader,
    };
  }
  return resolved;
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
