/**
 * The router: one chat request per task with the routing prompt, one generated token, the label tokens' logprobs
 * asked for by id (`logprob_token_ids`) and `top_logprobs` as a fallback; the best label picks an adapter or the base.
 */
import type { ChatClient } from "../models/chat-client.js";
import { labelTokenIds } from "./routing-labels.js";
import { routingMessages } from "./routing-prompt.js";
import type { RoutingDecision, RoutingOption } from "./routing-option.js";
import { selectRoute } from "./select-route.js";
import type { Tokenize } from "../models/tokenize-client.js";

/** How many `top_logprobs` to ask for (the fallback when the server does not support `logprob_token_ids`). */
const ROUTING_TOP_LOGPROBS = 20;

export interface RouterOptions {
  /** The sampler that scores labels (the base model). */
  chat: ChatClient;
  /** Model name for the routing request (default: the client's). */
  model?: string;
  tokenize: Tokenize;
  /** In order; ties between labels go to the option listed first. */
  options: readonly RoutingOption[];
}

export interface Router {
  readonly options: readonly RoutingOption[];
  /** Label token ids, in option order. */
  readonly tokenIds: readonly number[];
  route(request: string): Promise<RoutingDecision>;
}

/** Checks every label is one token (`LabelNotSingleTokenError` otherwise) and returns the router. */
export async function createRouter(options: RouterOptions): Promise<Router> {
  const tokenIds = await labelTokenIds(
    options.options.map((option) => option.label),
    options.tokenize,
  );
  return {
    options: options.options,
    tokenIds,
    async route(request) {
      const completion = await options.chat.complete({
        ...(options.model === undefined ? {} : { model: options.model }),
        messages: routingMessages(request, options.options),
        maxTokens: 1,
        temperature: 0,
        logprobs: true,
        topLogprobs: ROUTING_TOP_LOGPROBS,
        logprobTokenIds: tokenIds,
      });
      return selectRoute(options.options, tokenIds, completion);
    },
  };
}
