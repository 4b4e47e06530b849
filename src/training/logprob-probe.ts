/**
 * The sync check: short completions sampled from the sampler (several at once), their tokens scored by the trainer,
 * logprobs compared token by token; the sync is broken when at least `tokensBeyondTolerance` tokens differ by more
 * than their tolerance (or the trainer scores a token not at all).
 */
import type { ChatClient } from "../models/chat-client.js";
import type { ToolSpec } from "../spec/tool-spec.js";
import type { Message } from "../spec/message.js";
import { completionDatum } from "../worker/completion-datum.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import { SamplerLogprobMismatchError } from "./sampler-logprob-mismatch-error.js";
import { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";

export interface LogprobProbeOptions {
  /** The sampler's chat client. */
  chat: ChatClient;
  /**
   * What the probes continue, one per probe in turn (probe i reads conversation i mod n) [one short user message,
   * "Say hello."]. Prefixes of GRPO's own rollouts (`probeConversations`) were measured and read worse on an H200: a
   * stale sampler fired fewer sets, their near-certain tokens moving little, and batched long prompts of different
   * lengths fired in sync (`npm run bench:probe`; docs/environments-and-training.md).
   */
  conversations?: readonly ProbeConversation[];
  /** Completion tokens sampled [8]. */
  maxTokens?: number;
  /** Largest allowed |sampler − trainer| logprob at a logprob of 0 [by the trainer's dtype: 1e-3 in float32, 0.1 in bf16 / fp16]. */
  tolerance?: number;
  /** What each unit of |logprob| adds to the tolerance [by the trainer's dtype: 0 in float32, 0.02 in bf16 / fp16]. */
  relativeTolerance?: number;
  /** Sampling seed of the first completion; the others take the next seeds [0]. */
  seed?: number;
  /** Completions sampled at once (one batch on the sampler, one `forward` on the trainer) [8]. */
  probes?: number;
  /**
   * Distinct readings (`distinctReadings`) beyond their tolerance that make a mismatch [2]. In bfloat16 one token of an
   * in-sync adapter can land beyond (1 of 6,862 over three GRPO runs on an H200, `npm run bench:probe`), while a
   * sampler one update behind puts 6–69 of about 256 there; one token alone is rounding, two are a broken sync. A
   * token several probes sampled after the same prefix counts once (one such token, read by two of 8 probes, stopped
   * a GPU comparison when counted twice).
   */
  tokensBeyondTolerance?: number;
  /**
   * Further probe sets, on fresh seeds, that must fail too before the sync is called broken [1]. A sampler one update
   * behind fails every set (6–69 of about 256 readings beyond); two bfloat16 rounding slips in one set of an in-sync
   * adapter are rare, in two sets in a row rarer still — and such a pair stopped two GPU runs in about twenty (sixteenth
   * session, docs/trace-mini-v2.md) before sets were confirmed. 0: the first failing set decides.
   */
  confirmations?: number;
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

/** A conversation the probe samples a continuation of: its messages (the system prompt first, if any) and tools. */
export interface ProbeConversation {
  messages: Message[];
  tools?: ToolSpec[];
}

/** The probe's conversation when none is given: one short user message, no tools. */
export const DEFAULT_PROBE_CONVERSATION: ProbeConversation = { messages: [{ role: "user", content: "Say hello." }] };

/**
 * Probe conversations from sampled episodes (each: its messages without the system prompt, as rollouts store them):
 * the system prompt, then episode j's messages before one of its assistant turns (turn j mod its assistant turns, so
 * the probes read the decisions of several steps), with its tools. At most `count`, in the episodes' order (read no
 * further than needed); an episode without an assistant turn gives none.
 */
export function probeConversations(episodes: Iterable<{ systemPrompt: string; messages: readonly Message[]; tools?: ToolSpec[] }>, count: number): ProbeConversation[] {
  const conversations: ProbeConversation[] = [];
  for (const episode of episodes) {
    if (conversations.length >= count) break;
    const turns = episode.messages.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
    if (turns.length === 0) continue;
    const cut = turns[conversations.length % turns.length]!;
    conversations.push({ messages: [{ role: "system", content: episode.systemPrompt }, ...episode.messages.slice(0, cut)], ...(episode.tools === undefined ? {} : { tools: episode.tools }) });
  }
  return conversations;
}

/** One completion token of a probe: the sampler's logprob, the trainer's, and the tolerance at it. */
export interface ProbeToken {
  /**
   * The probe's conversation (its index) and the completion's token ids up to and including this one: two probes that
   * sample the same tokens after the same prefix read the same position twice (one reading, not two independent ones).
   */
  sequence: string;
  samplerLogprob: number;
  /** NaN when the trainer returned none for the token. */
  trainerLogprob: number;
  /** |sampler − trainer|; NaN when the trainer returned none. */
  difference: number;
  /** The tolerance at this token: absolute plus relative times |trainer logprob|. */
  allowed: number;
}

type ProbeTarget = LogprobProbeOptions & { trainer: TrainerClient; adapter: string; model: string };

/**
 * Samples `probes` completions from `model` (seeds `seed`, `seed` + 1, …, all at once; seed s continues conversation
 * s mod n) and scores their tokens with one `forward` on the trainer's `adapter`; every token's reading, one list per
 * completion.
 */
export async function measureProbe(options: ProbeTarget): Promise<ProbeToken[][]> {
  const dtype = options.tolerance === undefined || options.relativeTolerance === undefined ? (await options.trainer.health()).dtype : "";
  const tolerance = options.tolerance ?? defaultProbeTolerance(dtype);
  const relativeTolerance = options.relativeTolerance ?? defaultProbeRelativeTolerance(dtype);
  const firstSeed = options.seed ?? 0;
  const conversations = options.conversations === undefined || options.conversations.length === 0 ? [DEFAULT_PROBE_CONVERSATION] : options.conversations;
  const conversationOf = (index: number) => (firstSeed + index) % conversations.length;
  const completions = await Promise.all(
    Array.from({ length: options.probes ?? 8 }, (_, index) => {
      const { messages, tools } = conversations[conversationOf(index)]!;
      return options.chat.complete({
        model: options.model,
        messages,
        ...(tools === undefined ? {} : { tools }),
        maxTokens: options.maxTokens ?? 8,
        temperature: 1,
        seed: firstSeed + index,
        logprobs: true,
        returnTokenIds: true,
      });
    }),
  );
  const sampled = completions.map((completion, index) => {
    const tokens = completion.message.tokens;
    if (tokens === undefined) throw new TypeError(`the sampler returned no token ids for model ${options.model} (it must serve returnTokenIds and logprobs)`);
    if (tokens.completionLogprobs.length !== tokens.completionTokenIds.length) throw new SampledTokensMismatchError(tokens, "logprobs not one per completion token");
    return { tokens, conversation: conversationOf(index) };
  });
  const scored = sampled.filter(({ tokens }) => tokens.completionTokenIds.length > 0);
  const trainerLogprobs = scored.length === 0 ? [] : await options.trainer.forward({ adapter: options.adapter, datums: scored.map(({ tokens }) => completionDatum(tokens, 0)) });
  return scored.map(({ tokens, conversation }, probe) => {
    const offset = tokens.promptTokenIds.length - 1;
    return tokens.completionLogprobs.map((samplerLogprob, index) => {
      const trainerLogprob = trainerLogprobs[probe]?.[offset + index] ?? Number.NaN;
      const sequence = `${conversation}:${tokens.completionTokenIds.slice(0, index + 1).join(",")}`;
      return { sequence, samplerLogprob, trainerLogprob, difference: Math.abs(samplerLogprob - trainerLogprob), allowed: tolerance + relativeTolerance * Math.abs(trainerLogprob) };
    });
  });
}

/** Whether a token differs beyond its tolerance; a NaN difference (no trainer logprob) is beyond every tolerance. */
export function isBeyondTolerance(token: ProbeToken): boolean {
  return Number.isNaN(token.difference) || token.difference > token.allowed;
}

/** How far a token lies beyond its tolerance (negative within it; infinite when the trainer did not score it). */
function excessOverTolerance(token: ProbeToken): number {
  return Number.isNaN(token.difference) ? Number.POSITIVE_INFINITY : token.difference - token.allowed;
}

/**
 * The distinct readings among `tokens`: one per `sequence` (of several, the one furthest beyond its tolerance; an
 * unscored one first). Completions sampled at temperature 1 often share their first tokens, and a position read by
 * several probes is still one reading of the sampler against the trainer; counting it once per probe would turn one
 * rounding slip into several.
 */
export function distinctReadings(tokens: readonly ProbeToken[]): ProbeToken[] {
  const bySequence = new Map<string, ProbeToken>();
  for (const token of tokens) {
    const seen = bySequence.get(token.sequence);
    if (seen === undefined || excessOverTolerance(token) > excessOverTolerance(seen)) bySequence.set(token.sequence, token);
  }
  return [...bySequence.values()];
}

/** The token furthest beyond its tolerance, if any (a NaN difference first). */
export function worstProbeToken(tokens: readonly ProbeToken[]): ProbeToken | undefined {
  let worst: { token: ProbeToken; excess: number } | undefined;
  for (const token of tokens) {
    if (!isBeyondTolerance(token)) continue;
    const excess = excessOverTolerance(token);
    if (worst === undefined || excess > worst.excess) worst = { token, excess };
  }
  return worst?.token;
}

/**
 * Probes `model` against the trainer's `adapter`; returns the largest |difference| read, or throws
 * `SamplerLogprobMismatchError` when, in the first set and in each of its `confirmations`, `tokensBeyondTolerance`
 * distinct readings (or one the trainer did not score) lie beyond their tolerance.
 */
export async function probeLogprobs(options: ProbeTarget): Promise<number> {
  const sets = 1 + (options.confirmations ?? 1);
  const probes = options.probes ?? 8;
  let largest = 0;
  // Every set either passes (return) or fails; the last failing one throws.
  for (let set = 0; ; set += 1) {
    // Set k samples on the seeds after set k − 1's.
    const tokens = distinctReadings((await measureProbe({ ...options, seed: (options.seed ?? 0) + set * probes })).flat());
    largest = Math.max(largest, ...tokens.map((token) => token.difference));
    const beyond = tokens.filter(isBeyondTolerance);
    const worst = worstProbeToken(beyond);
    const broken = worst !== undefined && (beyond.length >= (options.tokensBeyondTolerance ?? 2) || beyond.some((token) => Number.isNaN(token.difference)));
    if (!broken) return largest;
    if (set === sets - 1) throw new SamplerLogprobMismatchError(options.model, worst.difference, worst.allowed, worst.trainerLogprob, { beyond: beyond.length, tokens: tokens.length }, sets);
  }
}
