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
  /** Largest allowed |sampler − trainer| logprob [by the trainer's dtype: 1e-3 in float32, 0.1 in bf16 / fp16]. */
  tolerance?: number;
  /** Sampling seed [0]. */
  seed?: number;
}

/**
 * The default tolerance for a trainer computing in `dtype`: fp32 sampler and trainer agree to ~1e-6, so 1e-3 catches a
 * stale adapter; in bf16 (8 mantissa bits) the sampler's cached decode and the trainer's full forward differ by a few
 * hundredths on logprobs of magnitude 5–10 (measured 3.3e-2 on an H200), so 0.1 (2–3 bf16 steps) catches only a wrong
 * or stale model, not rounding.
 */
export function defaultProbeTolerance(dtype: string): number {
  return dtype === "float32" || dtype === "float64" ? 1e-3 : 1e-1;
}

const DEFAULT_PROBE_MESSAGES: Message[] = [{ role: "user", content: "Say hello." }];

/** Samples from `model`, runs `forward` on the trainer's `adapter` over the same tokens; returns the max difference or throws. */
export async function probeLogprobs(options: LogprobProbeOptions & { trainer: TrainerClient; adapter: string; model: string }): Promise<number> {
  const tolerance = options.tolerance ?? defaultProbeTolerance((await options.trainer.health()).dtype);
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
