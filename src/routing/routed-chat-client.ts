/**
 * A policy that routes itself: on its first request it reads the conversation's first user message, asks the router
 * once, and answers this and every later turn with the chosen option's client. Used where the first user message is
 * known only once the conversation runs (τ²'s LLM user on held-out tasks), as `trace serve` routes live conversations.
 */
import type { ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import type { RoutingDecision } from "./routing-option.js";
import { TraceError } from "../spec/trace-error.js";

/** A conversation without a user message cannot be routed. */
export class NoUserMessageError extends TraceError {
  override readonly name = "NoUserMessageError";
  constructor(readonly roles: readonly string[]) {
    super(`cannot route a conversation without a user message (roles: ${roles.join(", ") || "none"})`, { category: "data" });
  }
}

export interface RoutedChatClientOptions {
  route(request: string): Promise<RoutingDecision>;
  /** The client that samples an option's model (an adapter name, or the base model's). */
  clientFor(model: string): ChatClient | Promise<ChatClient>;
  /** Called once, with the decision. */
  onRoute?: (decision: RoutingDecision, request: string) => void;
}

/** A chat client for one conversation that routes on its first request. */
export function createRoutedChatClient(options: RoutedChatClientOptions): ChatClient {
  let chosen: Promise<ChatClient> | undefined;
  let client: ChatClient | undefined;
  const choose = async (request: ChatRequest): Promise<ChatClient> => {
    const first = request.messages.find((message) => message.role === "user");
    if (first === undefined || typeof first.content !== "string") throw new NoUserMessageError(request.messages.map((message) => message.role));
    const decision = await options.route(first.content);
    options.onRoute?.(decision, first.content);
    client = await options.clientFor(decision.model);
    return client;
  };
  return {
    async complete(request) {
      chosen ??= choose(request);
      return (await chosen).complete(request);
    },
    usage: () => client?.usage() ?? { requests: 0, retries: 0, failures: 0, promptTokens: 0, completionTokens: 0, cost: null },
  };
}
