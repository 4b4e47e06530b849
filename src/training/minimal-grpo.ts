/**
 * A minimal GRPO loop over the worker, for tests and small experiments: per iteration, sample a group of completions
 * per prompt from the adapter, score them, turn rewards into group-relative advantages (zero-variance groups
 * dropped), and take one PPO step whose per-token advantages are divided by the batch's completion tokens (a token
 * mean). The full GRPO orchestration (rollouts in environments, checkpoints, resume) is `runGrpo` (run-grpo.ts).
 */
import type { ChatClient } from "../models/chat-client.js";
import type { ChatCompletion } from "../models/chat-types.js";
import type { Message } from "../spec/message.js";
import { completionDatum } from "../worker/completion-datum.js";
import { groupAdvantages } from "./grpo-data.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import type { Datum, LossConfig } from "../worker/trainer-types.js";

export interface MinimalGrpoOptions {
  trainer: TrainerClient;
  /** A chat client on the same worker (it must return token ids and logprobs: the loop asks for both). */
  chat: ChatClient;
  /** An adapter the worker holds; it is sampled and trained. */
  adapter: string;
  /** One group per prompt per iteration. */
  prompts: Message[][];
  reward: (completion: ChatCompletion) => number;
  groupSize: number;
  iterations: number;
  maxTokens: number;
  learningRate: number;
  /** Default 1. */
  temperature?: number;
  lossConfig?: LossConfig;
  /** Default 1 (the worker's default). */
  maxGradNorm?: number;
  /** Sampling seeds are derived from it (default 0). */
  seed?: number;
  onIteration?: (stats: GrpoIterationStats) => void;
  /** Ends the loop early when it returns true (checked after each iteration's update). */
  stopWhen?: (stats: GrpoIterationStats, history: readonly GrpoIterationStats[]) => boolean;
}

export interface GrpoIterationStats {
  iteration: number;
  /** Mean reward of this iteration's samples (drawn before its update). */
  meanReward: number;
  samples: number;
  /** Groups with reward variance, the ones trained on. */
  groupsTrained: number;
  /** Completion tokens trained on. */
  tokens: number;
  /** Null when no group had variance (no update). */
  gradNorm: number | null;
  approxKl: number | null;
  entropy: number | null;
  seconds: number;
}

/** Runs the loop and returns each iteration's statistics. */
export async function runMinimalGrpo(options: MinimalGrpoOptions): Promise<GrpoIterationStats[]> {
  const history: GrpoIterationStats[] = [];
  const baseSeed = options.seed ?? 0;
  for (let iteration = 0; iteration < options.iterations; iteration += 1) {
    const started = performance.now();
    const groups = await Promise.all(
      options.prompts.map((messages, promptIndex) =>
        Promise.all(
          Array.from({ length: options.groupSize }, (_, member) =>
            options.chat.complete({
              model: options.adapter,
              messages,
              maxTokens: options.maxTokens,
              temperature: options.temperature ?? 1,
              seed: baseSeed + (iteration * options.prompts.length + promptIndex) * options.groupSize + member,
              logprobs: true,
              returnTokenIds: true,
            }),
          ),
        ),
      ),
    );
    const scored = groups.map((completions) => completions.map((completion) => ({ completion, reward: options.reward(completion) })));
    const rewards = scored.flat().map((sample) => sample.reward);
    const meanReward = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;

    const trained: Datum[] = [];
    let tokens = 0;
    let groupsTrained = 0;
    for (const group of scored) {
      const advantages = groupAdvantages(group.map((sample) => sample.reward));
      if (advantages === null) continue;
      groupsTrained += 1;
      group.forEach((sample, index) => {
        const sampled = sample.completion.message.tokens;
        if (sampled === undefined || sampled.completionTokenIds.length === 0) return;
        tokens += sampled.completionTokenIds.length;
        trained.push(completionDatum(sampled, advantages[index]!));
      });
    }
    const stats: GrpoIterationStats = { iteration, meanReward, samples: rewards.length, groupsTrained, tokens, gradNorm: null, approxKl: null, entropy: null, seconds: 0 };
    if (tokens > 0) {
      // Token mean over the batch: every completion token's advantage divided by the batch's completion tokens.
      const datums = trained.map((datum) => ({ ...datum, advantages: datum.advantages!.map((advantage) => advantage / tokens) }));
      const result = await options.trainer.forwardBackward({ adapter: options.adapter, loss: "ppo", lossConfig: options.lossConfig, datums, returnLogprobs: false });
      const step = await options.trainer.optimStep({ adapter: options.adapter, learningRate: options.learningRate, maxGradNorm: options.maxGradNorm });
      stats.gradNorm = step.gradNorm;
      stats.approxKl = result.metrics.approxKl;
      stats.entropy = result.metrics.entropy;
    }
    stats.seconds = (performance.now() - started) / 1000;
    history.push(stats);
    options.onIteration?.(stats);
    if (options.stopWhen?.(stats, history)) break;
  }
  return history;
}
