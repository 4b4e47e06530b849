/**
 * The retrieval router, for base models too small to classify a task from the routing prompt: each capability option
 * holds example requests from its synthetic environment (never evaluation tasks); a task goes to the option of its
 * nearest examples by TF-IDF cosine similarity over word tokens (k-nearest vote, ties to the option listed first),
 * or to "none of these" when no example is at least `minimumSimilarity` alike. Written by hand: a bag-of-words cosine
 * is a few lines, and the text libraries that offer it (e.g. `natural`) bring far more than this needs.
 */
import type { RoutingDecision, RoutingOption } from "./routing-option.js";
import { TraceError } from "../spec/trace-error.js";

/** A capability option with its example requests (the "none of these" option has none). */
export interface RetrievalOption extends RoutingOption {
  examples: readonly string[];
}

export interface RetrievalRouterOptions {
  options: readonly RetrievalOption[];
  /** Nearest examples that vote (default 5). */
  neighbours?: number;
  /** Below this best similarity the task goes to the option without examples ("none of these") [0.05]. */
  minimumSimilarity?: number;
}

export interface RetrievalRouter {
  readonly options: readonly RoutingOption[];
  route(request: string): RoutingDecision & { similarity: number };
  /**
   * The request's sentences that each match some capability's examples with similarity ≥ `minimumSimilarity` (their
   * own decisions): two or more make it a multi-part request (`isMultiPart`).
   */
  confidentParts(request: string, minimumSimilarity: number): (RoutingDecision & { similarity: number; part: string })[];
}

/** A request's sentences: split after ".", "!" or "?" followed by white space; empty pieces dropped. */
export function requestSentences(request: string): string[] {
  return request
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence !== "");
}

/**
 * How a request is judged multi-part from its sentences that match a capability's examples closely: `sentences`, two
 * or more such sentences; `capabilities`, such sentences of two or more different capabilities (fewer multi-part
 * requests found, but a reason or a greeting close to one capability's examples cannot make a single request look
 * multi-part, whatever the example corpus).
 */
export type MultiPartRule = "sentences" | "capabilities";

/** Whether the request asks for several things, by `rule`, counting the sentences with similarity ≥ `minimumSimilarity`. */
export function isMultiPart(router: RetrievalRouter, request: string, minimumSimilarity: number, rule: MultiPartRule = "sentences"): boolean {
  const parts = router.confidentParts(request, minimumSimilarity);
  return rule === "sentences" ? parts.length >= 2 : new Set(parts.map((part) => part.capability)).size >= 2;
}

/** An option with examples was given none, or no option can take "none of these". */
export class RetrievalRouterError extends TraceError {
  override readonly name = "RetrievalRouterError";
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message, { category: "data" });
  }
}

/**
 * The request's words, lower-cased; any token with a digit in it (`#W42`, `u17`, `card_4821`, `2`) is left out:
 * identifiers and numbers change from task to task and say nothing about which capability a task needs, and a shared
 * id would pull a request towards an unrelated example.
 */
function words(text: string): string[] {
  return text.toLowerCase().replace(/[\w#]*\d[\w#]*/g, " ").match(/[a-z]+/g) ?? [];
}

type Vector = Map<string, number>;

function cosine(left: Vector, right: Vector): number {
  let dot = 0;
  for (const [word, weight] of left) dot += weight * (right.get(word) ?? 0);
  return dot;
}

/** Builds the index over every option's examples. */
export function createRetrievalRouter(options: RetrievalRouterOptions): RetrievalRouter {
  const neighbours = options.neighbours ?? 5;
  const minimumSimilarity = options.minimumSimilarity ?? 0.05;
  const fallback = options.options.find((option) => option.capability === null);
  for (const option of options.options) {
    if (option.capability !== null && option.examples.length === 0) throw new RetrievalRouterError(option.label, `routing option ${option.label} (${option.capability}) has no example requests`);
  }
  const documents = options.options.flatMap((option, index) => option.examples.map((text) => ({ index, words: words(text) })));
  const documentFrequency = new Map<string, number>();
  for (const document of documents) for (const word of new Set(document.words)) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  const vector = (tokens: readonly string[]): Vector => {
    const counts = new Map<string, number>();
    for (const word of tokens) if (documentFrequency.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
    const weighted = new Map([...counts].map(([word, count]) => [word, count * Math.log((1 + documents.length) / (1 + documentFrequency.get(word)!))] as const));
    const norm = Math.sqrt([...weighted.values()].reduce((sum, weight) => sum + weight * weight, 0));
    return new Map([...weighted].map(([word, weight]) => [word, norm === 0 ? 0 : weight / norm]));
  };
  const indexed = documents.map((document) => ({ index: document.index, vector: vector(document.words) }));
  const router: RetrievalRouter = {
    options: options.options,
    confidentParts(request, minimumPartSimilarity) {
      return requestSentences(request).flatMap((part) => {
        const decision = router.route(part);
        return decision.capability !== null && decision.similarity >= minimumPartSimilarity ? [{ ...decision, part }] : [];
      });
    },
    route(request) {
      const query = vector(words(request));
      const ranked = indexed.map((document) => ({ index: document.index, similarity: cosine(query, document.vector) })).sort((left, right) => right.similarity - left.similarity || left.index - right.index);
      const best = ranked[0]?.similarity ?? 0;
      const votes = new Array<number>(options.options.length).fill(0);
      for (const neighbour of ranked.slice(0, neighbours)) votes[neighbour.index]! += neighbour.similarity;
      let chosenIndex = votes.indexOf(Math.max(...votes));
      if (best < minimumSimilarity || votes[chosenIndex] === 0) {
        if (fallback === undefined) throw new RetrievalRouterError("(none)", `no example is similar to the request and there is no "none of these" option: ${request}`);
        chosenIndex = options.options.indexOf(fallback);
      }
      const chosen = options.options[chosenIndex]!;
      const total = votes.reduce((sum, vote) => sum + vote, 0);
      return {
        label: chosen.label,
        capability: chosen.capability,
        model: chosen.model,
        // Vote shares stand in for label logprobs (log of the share; null for options without a vote).
        logprobs: options.options.map((option, index) => ({ label: option.label, logprob: votes[index]! > 0 && total > 0 ? Math.log(votes[index]! / total) : null })),
        source: "retrieval",
        similarity: best,
      };
    },
  };
  return router;
}
