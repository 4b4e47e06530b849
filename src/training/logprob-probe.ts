/** The sync check: a short completion sampled from the sampler, its tokens scored by the trainer, logprobs compared. */
import type { ChatClient } from "../models/chat-client.js";
import type { Message } from "../spec/message.js";
import { completionDatum } from "../worker/completion-datum.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import { SamplerLogprobMismatchError } from "./sampler-logprob-mismatch-error.js";
import { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";

export interface LogprobProbeOptions {
  /** The sampler's chat client. */
  chat: ChatClient;
  /** Probe conversation [one short user message]. */
  messages?: Message[];
  /** Completion tokens sampled [8]. */
  maxTokens?: number;
  /** Largest allowed |sampler − trainer| logprob [1e-3]. */
  tolerance?: number;
  /** Sampling seed [0]. */
  seed?: number;
}

export const DEFAULT_PROBE_MESSAGES: Message[] = [{ role: "user", content: "Say hello." }];

/** Samples from `model`, runs `forward` on the trainer's `adapter` over the same tokens; returns the max difference or throws. */
export async function probeLogprobs(options: LogprobProbeOptions & { trainer: TrainerClient; adapter: string; model: string }): Promise<number> {
  const tolerance = options.tolerance ?? 1e-3;
  const completion = await options.chat.complete({
    model: options.model,
    messages: options.messages ?? DEFAULT_PROBE_MESSAGES,
    maxTokens: options.maxTokens ?? 8,
    temperature: 1,
    seed: options.seed ?? 0,
    logprobs: true,
    returnTokenIds: true,
  });
  const tokens = completion.message.tokens;
  if (tokens === undefined) throw new TypeError(`the sampler returned no token ids for model ${options.model} (it must serve returnTokenIds and logprobs)`);
  if (tokens.completionTokenIds.length === 0) return 0;
  if (tokens.completionLogprobs.length !== tokens.completionTokenIds.length) throw new SampledTokensMismatchError(tokens, "logprobs not one per completion token");
  const [trainerLogprobs] = await options.trainer.forward({ adapter: options.adapter, datums: [completionDatum(tokens, 0)] });
  const offset = tokens.promptTokenIds.length - 1;
  let maxDifference = 0;
  tokens.completionLogprobs.forEach((logprob, index) => {
    maxDifference = Math.max(maxDifference, Math.abs(logprob - (trainerLogprobs?.[offset + index] ?? Number.NaN)));
  });
  if (!(maxDifference <= tolerance)) throw new SamplerLogprobMismatchError(options.model, maxDifference, tolerance);
  return maxDifference;
}
