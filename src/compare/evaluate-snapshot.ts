/**
 * Evaluates one snapshot of a method on the target's evaluation tasks: every task × trial through the agent loop with
 * the snapshot's policy, stored in `compare/episodes.sqlite` under `<environment>|<label>` (a rerun skips finished
 * episodes), with the evaluation settings the evaluate stage uses (`runEvaluation`): every method gets the same
 * sampling seeds, so scores are paired across methods and agree with `eval/results.json` on the same policy.
 */
import type { ChatClient } from "../models/chat-client.js";
import type { RoutingFile } from "../run/routing-file.js";
import type { TargetDomain } from "../pipeline/target-tasks.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { ensureAdaptersServed } from "../pipeline/serve-adapter.js";
import { runEvaluation } from "../pipeline/evaluation-episodes.js";
import type { TrajectoryStore } from "../store/trajectory-store.js";
import { withCandidatePrompt } from "../baselines/gepa/candidate-system-prompt.js";
import type { SnapshotPolicy } from "./compare-setup.js";
import type { DomainResult } from "./report/comparison-types.js";

/** One domain's evaluation: passed / total episodes and mean reward, and pass counts per kind of task where the target names one. */
export type DomainScore = DomainResult;

export interface EvaluateSnapshotOptions {
  context: PipelineContext;
  domains: readonly TargetDomain[];
  routing: RoutingFile | undefined;
  policy: SnapshotPolicy;
  /** Unique per method, seed and snapshot (e.g. `trace|seed-0|96`). */
  label: string;
  store: TrajectoryStore;
}

/** Runs (or resumes) the evaluation and scores it per domain. */
export async function evaluateSnapshot(options: EvaluateSnapshotOptions): Promise<DomainScore[]> {
  const { context, policy, store } = options;
  const { config } = context;
  const base = config.model.servedModelName;
  if (policy.kind === "model" && policy.adapterPath !== undefined) await ensureAdaptersServed(context, [{ model: policy.model, adapterPath: policy.adapterPath }]);
  if (policy.kind === "routed") await ensureAdaptersServed(context, Object.values(policy.adapters));
  const chosen = new Map((options.routing?.decisions ?? []).map((decision) => [`${decision.environment}\u0000${decision.taskId}`, decision.capability]));
  const scores: DomainScore[] = [];
  for (const domain of options.domains) {
    const prompted = policy.kind === "prompt" ? withCandidatePrompt(domain.environment, policy.candidate) : domain.environment;
    const name = `${domain.environment.name}|${options.label}`;
    const models = new Map<string, ChatClient>();
    for (const task of domain.evaluationTasks) {
      let model = base;
      if (policy.kind === "model") model = policy.model;
      if (policy.kind === "routed") {
        const capability = chosen.get(`${domain.environment.name}\u0000${task.id}`);
        model = capability === undefined || capability === null ? base : (policy.adapters[capability]?.model ?? base);
      }
      models.set(task.id, await context.sampler(model));
    }
    const score = await runEvaluation({
      config,
      environment: { ...prompted, name },
      tasks: domain.evaluationTasks,
      store,
      makePolicy: (episode) => models.get(episode.task.id)!,
      makeUser: domain.makeUser,
      ...(domain.taskGroups === undefined ? {} : { taskGroups: domain.taskGroups }),
      metadata: { stage: "compare", label: options.label },
    });
    scores.push({ domain: domain.domain, ...score });
  }
  return scores;
}
