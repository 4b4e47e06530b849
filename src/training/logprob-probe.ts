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
  /** Largest allowed |sampler − trainer| logprob at a logprob of 0 [by the trainer's dtype: 1e-3 in float32, 0.1 in bf16 / fp16]. */
  tolerance?: number;
  /** What each unit of |logprob| adds to the tolerance [by the trainer's dtype: 0 in float32, 0.02 in bf16 / fp16]. */
  relativeTolerance?: number;
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

/**
 * The default relative part of the tolerance: in bf16 the rounding of a logprob grows with the logits' scale, so an
 * unlikely token sampled at temperature 1 (logprob −10 to −20) differs by more than a likely one (measured 0.125 on
 * such a token of a GRPO adapter, on an H200); 0.02 per unit of |logprob| (about 5 bf16 steps of it) lets rounding
 * through there and still catches a stale adapter, whose differences reach the likely tokens too.
 */
export function defaultProbeRelativeTolerance(dtype: string): number {
  return dtype === "float32" || dtype === "float64" ? 0 : 2e-2;
}

const DEFAULT_PROBE_MESSAGES: Message[] = [{ role: "user", content: "Say hello." }];

/** One completion token of a probe: the sampler's logprob, the trainer's, and the tolerance at it. */
export interface ProbeToken {
  samplerLogprob: number;
  /** NaN when the trainer returned none for the token. */
  trainerLogprob: number;
  /** |sampler − trainer|; NaN when the trainer returned none. */
  difference: number;
  /** The tolerance at this token: absolute plus relative times |trainer logprob|. */
  allowed: number;
}

/** Samples from `model`, runs `forward` on the trainer's `adapter` over the same tokens; every token's reading. */
export async function measureProbe(options: LogprobProbeOptions & { trainer: TrainerClient; adapter: string; model: string }): Promise<ProbeToken[]> {
  const dtype = options.tolerance === undefined || options.relativeTolerance === undefined ? (await options.trainer.health()).dtype : "";
  const tolerance = options.tolerance ?? defaultProbeTolerance(dtype);
  const relativeTolerance = options.relativeTolerance ?? defaultProbeRelativeTolerance(dtype);
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
  if (tokens.completionTokenIds.length === 0) return [];
  if (tokens.completionLogprobs.length !== tokens.completionTokenIds.length) throw new SampledTokensMismatchError(tokens, "logprobs not one per completion token");
  const [trainerLogprobs] = await options.trainer.forward({ adapter: options.adapter, datums: [completionDatum(tokens, 0)] });
  const offset = tokens.promptTokenIds.length - 1;
  return tokens.completionLogprobs.map((samplerLogprob, index) => {
    const trainerLogprob = trainerLogprobs?.[offset + index] ?? Number.NaN;
    return { samplerLogprob, trainerLogprob, difference: Math.abs(samplerLogprob - trainerLogprob), allowed: tolerance + relativeTolerance * Math.abs(trainerLogprob) };
  });
}

/** The token furthest beyond its tolerance, if any; a NaN difference (no trainer logprob) is beyond every tolerance. */
export function worstProbeToken(tokens: readonly ProbeToken[]): ProbeToken | undefined {
  let worst: { token: ProbeToken; excess: number } | undefined;
  for (const token of tokens) {
    const excess = Number.isNaN(token.difference) ? Number.POSITIVE_INFINITY : token.difference - token.allowed;
    if (excess > 0 && (worst === undefined || excess > worst.excess)) worst = { token, excess };
  }
  return worst?.token;
}

/** Samples from `model`, runs `forward` on the trainer's `adapter` over the same tokens; returns the max difference or throws. */
export async function probeLogprobs(options: LogprobProbeOptions & { trainer: TrainerClient; adapter: string; model: string }): Promise<number> {
  const tokens = await measureProbe(options);
  const worst = worstProbeToken(tokens);
  if (worst !== undefined) throw new SamplerLogprobMismatchError(options.model, worst.difference, worst.allowed, worst.trainerLogprob);
  return tokens.reduce((largest, token) => Math.max(largest, token.difference), 0);
}
