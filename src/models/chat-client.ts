/** A client for OpenAI-compatible POST /chat/completions (vLLM included): retries, timeouts, a concurrency cap, usage totals. */
import { setTimeout as sleep } from "node:timers/promises";
import { ChatConnectionError } from "./chat-connection-error.js";
import { chatRequestBody } from "./chat-request-body.js";
import { ChatRequestError } from "./chat-request-error.js";
import { ChatTimeoutError } from "./chat-timeout-error.js";
import type { ChatCompletion, ChatRequest, TokenPricing, UsageTotals } from "./chat-types.js";
import { createConcurrencyLimit } from "./concurrency-limit.js";
import { parseChatResponse } from "./parse-chat-response.js";
import { isRetryableStatus, retryDelayMs } from "./retry-delay.js";

export interface ChatClientOptions {
  /** Up to and including the API version, e.g. `http://localhost:8000/v1`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Per attempt, covering the whole response body (default 120 000). */
  timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx, network errors and timeouts (default 3). */
  maxRetries?: number;
  /** HTTP requests in flight at once for this client (default 16). Waiting between retries holds no slot. */
  maxConcurrency?: number;
  fetch?: typeof fetch;
  /** Backoff scale of the first retry in ms (default 500). */
  retryBaseMs?: number;
  /** Cap on any one wait between attempts, `Retry-After` included, in ms (default 30 000). */
  maxRetryDelayMs?: number;
  /** Token prices for cost accounting in `usage()` (default: none, cost is null). */
  pricing?: TokenPricing;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
}

export interface ChatClient {
  complete(request: ChatRequest): Promise<ChatCompletion>;
  /** A snapshot of the totals so far. */
  usage(): UsageTotals;
}

type AttemptOutcome =
  | { kind: "response"; status: number; text: string; retryAfter: string | null }
  | { kind: "timeout"; error: unknown }
  | { kind: "network"; error: unknown };

export function createChatClient(options: ChatClientOptions): ChatClient {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const maxRetries = options.maxRetries ?? 3;
  const backoff = { baseMs: options.retryBaseMs ?? 500, maxMs: options.maxRetryDelayMs ?? 30_000, random: options.random ?? Math.random };
  const limit = createConcurrencyLimit(options.maxConcurrency ?? 16);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const totals: Omit<UsageTotals, "cost"> = { requests: 0, retries: 0, failures: 0, promptTokens: 0, completionTokens: 0 };
  const pricing = options.pricing;

  async function attempt(body: string): Promise<AttemptOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await fetchImpl(url, { method: "POST", headers, body, signal: controller.signal });
      const text = await response.text();
      return { kind: "response", status: response.status, text, retryAfter: response.headers.get("retry-after") };
    } catch (error) {
      return controller.signal.aborted ? { kind: "timeout", error } : { kind: "network", error };
    } finally {
      clearTimeout(timer);
    }
  }

  async function completeOnce(request: ChatRequest): Promise<ChatCompletion> {
    const model = request.model ?? options.model;
    const body = JSON.stringify(chatRequestBody(request, model));
    for (let attemptNumber = 0; ; attemptNumber += 1) {
      if (attemptNumber > 0) totals.retries += 1;
      const outcome = await limit.run(() => attempt(body));
      const last = attemptNumber >= maxRetries;
      if (outcome.kind === "response") {
        if (outcome.status >= 200 && outcome.status < 300) {
          return parseChatResponse(outcome.text, { url, logprobTokenIds: request.logprobTokenIds });
        }
        if (!isRetryableStatus(outcome.status) || last) throw new ChatRequestError(url, outcome.status, outcome.text, model);
        await sleep(retryDelayMs(attemptNumber, outcome.retryAfter, backoff));
        continue;
      }
      if (last) {
        const attempts = attemptNumber + 1;
        if (outcome.kind === "timeout") throw new ChatTimeoutError(url, timeoutMs, attempts, model, { cause: outcome.error });
        throw new ChatConnectionError(url, attempts, model, { cause: outcome.error });
      }
      await sleep(retryDelayMs(attemptNumber, null, backoff));
    }
  }

  return {
    async complete(request: ChatRequest): Promise<ChatCompletion> {
      totals.requests += 1;
      try {
        const completion = await completeOnce(request);
        totals.promptTokens += completion.usage.promptTokens;
        totals.completionTokens += completion.usage.completionTokens;
        return completion;
      } catch (error) {
        totals.failures += 1;
        throw error;
      }
    },
    usage: () => ({
      ...totals,
      cost: pricing === undefined ? null : (totals.promptTokens * pricing.promptPerMillion + totals.completionTokens * pricing.completionPerMillion) / 1e6,
    }),
  };
}
