/**
 * The one way a policy is evaluated on the target: the evaluate stage (the routed agent, the base model, each adapter
 * on its held-out seeds) and every `trace compare` snapshot run their episodes through `runEvaluation`, so they sample
 * with the same settings (`evaluation.trials`, `evaluation.temperature`, the evaluation seeds `7,000,000 + target.seed
 * + i`, the step and token limits) and the two reports agree on the same policy.
 */
import type { ChatClient } from "../models/chat-client.js";
import { runRollouts, throwIfEpisodesFailed, type RolloutProgress } from "../rollout/rollout-runner.js";
import type { SimulatedUser } from "../rollout/simulated-user.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import type { EpisodeKey, TrajectoryStore } from "../store/trajectory-store.js";
import { passCountsByGroup, scoreEpisodes, type EvaluationScore } from "./pass-counts.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";

/** Evaluation sampling seeds start here (plus `target.seed`), apart from the base rollouts' seeds. */
const EVALUATION_SEED_BASE = 7_000_000;

/** Options of `runEvaluation`. */
export interface RunEvaluationOptions {
  config: ResolvedPipelineConfig;
  /** The environment, already named as it is stored (e.g. `tau2-airline/base`, `tau2-airline|trace|seed-0|96`). */
  environment: Environment;
  tasks: readonly Task[];
  store: TrajectoryStore;
  makePolicy: (episode: { key: EpisodeKey; task: Task }) => ChatClient;
  makeUser: (task: Task) => SimulatedUser;
  /** Trials per task (default `evaluation.trials`); the capability environments' held-out seeds use 1. */
  trials?: number;
  metadata: Record<string, unknown>;
  /** The kinds each task counts under: the score then carries pass counts per kind (`groups`). */
  taskGroups?: (task: Task) => readonly string[];
  onProgress?: (progress: RolloutProgress) => void;
}

/** Runs (or resumes) the episodes and scores them; an episode that failed (endpoint, target) stops with its error. */
export async function runEvaluation(options: RunEvaluationOptions): Promise<EvaluationScore> {
  const { config, environment, store } = options;
  const { maxTokens, maxSteps } = config.evaluation;
  await runRollouts({
    environment,
    tasks: options.tasks,
    trials: options.trials ?? config.evaluation.trials,
    concurrency: config.target.concurrency,
    store,
    makePolicy: options.makePolicy,
    makeUser: options.makeUser,
    sampling: { temperature: config.evaluation.temperature, ...(maxTokens === undefined ? {} : { maxTokens }) },
    baseSeed: EVALUATION_SEED_BASE + config.target.seed,
    maxSteps,
    metadata: options.metadata,
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
  });
  throwIfEpisodesFailed(store, environment.name);
  const finished = store.listEpisodes({ environment: environment.name, status: "finished" });
  const score = scoreEpisodes(finished, new Set(options.tasks.map((task) => task.id)));
  if (options.taskGroups === undefined) return score;
  const taskGroups = options.taskGroups;
  return { ...score, groups: passCountsByGroup(finished, new Map(options.tasks.map((task) => [task.id, taskGroups(task)]))) };
}
