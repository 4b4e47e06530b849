/**
 * GEPA's evaluator for agents: runs the agent loop on an environment's tasks with the candidate appended to the
 * system prompt; the score is the episode's reward, the trace the rendered conversation, the feedback the grader's
 * verdict (reward, breakdown, details) and how the episode ended. An episode whose conversation outgrows the policy's
 * context scores 0: the candidate's text is part of that prompt, so the overflow is the candidate's (other endpoint
 * failures still stop the run).
 */
import { renderTrajectory } from "../../rollout/render-trajectory.js";
import type { ChatClient } from "../../models/chat-client.js";
import { createConcurrencyLimit } from "../../models/concurrency-limit.js";
import { isContextOverflow } from "../../models/endpoint-failure.js";
import { EpisodeEndpointError, runEpisode, type EpisodeResult, type SamplingOptions } from "../../rollout/agent-loop.js";
import type { SimulatedUser } from "../../rollout/simulated-user.js";
import type { Environment } from "../../spec/environment.js";
import type { Task } from "../../spec/task.js";
import type { CandidateEvaluator, EvaluationOutcome } from "./candidate.js";
import { withCandidatePrompt } from "./candidate-system-prompt.js";

export interface AgentEvaluatorOptions {
  environment: Environment;
  policy: ChatClient;
  /** A fresh simulated user for each episode of a task. */
  user: (task: Task) => SimulatedUser;
  sampling?: SamplingOptions;
  /**
   * The sampling seed of a task's episode (replacing `sampling.seed`): a task is played with the same random numbers
   * under every candidate, so a candidate's score depends on its text and not on which episodes ran beside it.
   */
  samplingSeed?: (task: Task) => number;
  /** Episodes run at once (default 1). */
  concurrency?: number;
  /** Longest details JSON kept in the feedback, in characters (default 2000). */
  maxDetailsChars?: number;
}

/** The feedback text of a finished episode. */
function episodeFeedback(result: EpisodeResult, maxDetailsChars = 2000): string {
  const { reward, termination } = result.trajectory;
  const lines = [`Episode ended by ${termination}${result.error === undefined ? "" : ` (${result.error})`}.`];
  if (reward === undefined) lines.push("No reward was given.");
  else {
    lines.push(`Reward ${reward.reward} (${reward.success ? "success" : "failure"}); breakdown ${JSON.stringify(reward.breakdown)}.`);
    if (reward.details !== undefined) lines.push(`Grader details: ${JSON.stringify(reward.details).slice(0, maxDetailsChars)}`);
  }
  return lines.join("\n");
}

/** A `CandidateEvaluator` over the environment's tasks. */
export function createAgentEvaluator(options: AgentEvaluatorOptions): CandidateEvaluator<Task> {
  const limit = createConcurrencyLimit(options.concurrency ?? 1);
  return (candidate, tasks) => {
    const environment = withCandidatePrompt(options.environment, candidate);
    return Promise.all(
      tasks.map((task) =>
        limit.run(async (): Promise<EvaluationOutcome> => {
          const episode: Parameters<typeof runEpisode>[0] = { environment, task, policy: options.policy, user: options.user(task) };
          if (options.sampling !== undefined) episode.sampling = options.sampling;
          if (options.samplingSeed !== undefined) episode.sampling = { ...options.sampling, seed: options.samplingSeed(task) };
          let result: EpisodeResult;
          try {
            result = await runEpisode(episode);
          } catch (error) {
            if (!(EpisodeEndpointError.isInstance(error) && error.side === "policy" && isContextOverflow(error))) throw error;
            const rendered = renderTrajectory({ key: `${environment.name}:${task.id}`, failed: true, reward: 0, termination: "agent_error", messages: error.messages });
            return { score: 0, trace: rendered.text, feedback: `Episode ended by agent_error: the conversation outgrew the model's context after ${error.steps} step${error.steps === 1 ? "" : "s"} (the system prompt is part of it).\nNo reward was given.` };
          }
          const score = result.trajectory.reward?.reward ?? 0;
          const rendered = renderTrajectory({ key: `${environment.name}:${task.id}`, failed: result.trajectory.reward?.success !== true, reward: score, termination: result.trajectory.termination, messages: result.trajectory.messages });
          return { score, trace: rendered.text, feedback: episodeFeedback(result, options.maxDetailsChars) };
        }),
      ),
    );
  };
}
