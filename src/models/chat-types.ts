/** What the chat client takes and gives back, independent of the wire format. */
import type { AssistantMessage, Message } from "../spec/message.js";
import type { ToolSpec } from "../spec/tool-spec.js";

export interface ChatRequest {
  messages: Message[];
  tools?: ToolSpec[];
  /** Overrides the client's model for this request. */
  model?: string;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  seed?: number;
  stop?: string | string[];
  logprobs?: boolean;
  topLogprobs?: number;
  /** vLLM: return `prompt_token_ids` and per-choice `token_ids` (needed for `message.tokens`). */
  returnTokenIds?: boolean;
  /** vLLM: report logprobs of exactly these vocabulary ids at each generated position (see `labelLogprobs`). */
  logprobTokenIds?: number[];
}

/** One candidate token at a generated position. `tokenId` is known only when the server names tokens as `token_id:N`. */
export interface TokenLogprob {
  token: string;
  logprob: number;
  tokenId?: number;
}

export interface ChatCompletion {
  /** The assistant turn; `tokens` is set when the server returned prompt ids, completion ids and logprobs. */
  message: AssistantMessage;
  /** `stop`, `length`, `tool_calls`, … as the server said; null when it gave none. */
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number };
  /** Per generated position, the candidates the server listed (`top_logprobs`). */
  topLogprobs?: TokenLogprob[][];
  /** Token id → logprob at the first generated position, for the ids asked for in `logprobTokenIds`. */
  labelLogprobs?: Record<number, number>;
  /** The parsed JSON body as the server sent it. */
  raw: unknown;
}

export interface UsageTotals {
  /** `complete()` calls started. */
  requests: number;
  /** Extra HTTP attempts made after a retryable failure. */
  retries: number;
  /** `complete()` calls that ended in an error. */
  failures: number;
  promptTokens: number;
  completionTokens: number;
  /** Cost in the pricing's currency, from the token totals; null when the client has no pricing. */
  cost: number | null;
}

/** Token prices of an endpoint (e.g. USD per million tokens), for cost accounting. */
export interface TokenPricing {
  promptPerMillion: number;
  completionPerMillion: number;
}
