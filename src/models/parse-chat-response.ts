/** Turns a chat-completions response body into a ChatCompletion, or says exactly what is wrong with it. */
import type { AssistantMessage, SampledTokens } from "../spec/message.js";
import { ChatResponseError } from "./chat-response-error.js";
import { chatResponseSchema } from "./chat-response-schema.js";
import type { ChatCompletion, TokenLogprob } from "./chat-types.js";

export interface ParseContext {
  url: string;
  /** The ids the request asked about with `logprob_token_ids`, if any. */
  logprobTokenIds?: readonly number[];
}

/** vLLM names tokens `token_id:N` when the request sets `return_tokens_as_token_ids`. */
export function tokenIdOf(token: string): number | undefined {
  const match = /^token_id:(\d+)$/.exec(token);
  return match ? Number(match[1]) : undefined;
}

function withTokenId(entry: { token: string; logprob: number }): TokenLogprob {
  const tokenId = tokenIdOf(entry.token);
  return tokenId === undefined ? { token: entry.token, logprob: entry.logprob } : { token: entry.token, logprob: entry.logprob, tokenId };
}

export function parseChatResponse(bodyText: string, context: ParseContext): ChatCompletion {
  let raw: unknown;
  try {
    raw = JSON.parse(bodyText);
  } catch (error) {
    throw new ChatResponseError(context.url, [`body is not JSON: ${(error as Error).message}`], bodyText, { cause: error });
  }
  const parsed = chatResponseSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(body)"}: ${issue.message}`);
    throw new ChatResponseError(context.url, problems, bodyText, { cause: parsed.error });
  }
  const body = parsed.data;
  const choice = body.choices[0]!;
  const content = choice.logprobs?.content ?? undefined;

  const message: AssistantMessage = { role: "assistant", content: choice.message.content ?? null };
  const toolCalls = choice.message.tool_calls ?? [];
  if (toolCalls.length > 0) message.tool_calls = toolCalls;

  const completionIds = choice.token_ids ?? undefined;
  const promptIds = body.prompt_token_ids ?? undefined;
  if (promptIds && completionIds && content) {
    if (content.length !== completionIds.length) {
      throw new ChatResponseError(
        context.url,
        [`choices.0.logprobs.content has ${content.length} entries but choices.0.token_ids has ${completionIds.length}`],
        bodyText,
      );
    }
    const tokens: SampledTokens = {
      promptTokenIds: promptIds,
      completionTokenIds: completionIds,
      completionLogprobs: content.map((entry) => entry.logprob),
    };
    message.tokens = tokens;
  }

  const completion: ChatCompletion = {
    message,
    finishReason: choice.finish_reason ?? null,
    usage: { promptTokens: body.usage?.prompt_tokens ?? 0, completionTokens: body.usage?.completion_tokens ?? 0 },
    raw,
  };
  if (content) {
    completion.topLogprobs = content.map((entry) => (entry.top_logprobs ?? []).map(withTokenId));
  }
  const wanted = context.logprobTokenIds;
  const first = content?.[0];
  if (wanted && wanted.length > 0 && first) {
    const labels: Record<number, number> = {};
    const wantedSet = new Set(wanted);
    for (const candidate of [first, ...(first.top_logprobs ?? [])]) {
      const id = tokenIdOf(candidate.token);
      if (id !== undefined && wantedSet.has(id) && !(id in labels)) labels[id] = candidate.logprob;
    }
    completion.labelLogprobs = labels;
  }
  return completion;
}
