/** A ChatRequest → the JSON body of POST /chat/completions (OpenAI fields plus vLLM's token-id extensions). */
import type { ChatRequest } from "./chat-types.js";
import { toWireMessages } from "./wire-messages.js";

export function chatRequestBody(request: ChatRequest, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model, messages: toWireMessages(request.messages) };
  if (request.tools && request.tools.length > 0) body.tools = request.tools;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.stop !== undefined) body.stop = request.stop;
  if (request.logprobs !== undefined) body.logprobs = request.logprobs;
  if (request.topLogprobs !== undefined) body.top_logprobs = request.topLogprobs;
  if (request.returnTokenIds) body.return_token_ids = true;
  if (request.logprobTokenIds && request.logprobTokenIds.length > 0) {
    body.logprob_token_ids = request.logprobTokenIds;
    // vLLM then lists candidates as `token_id:N`, the only way to tell which requested id each logprob belongs to.
    body.return_tokens_as_token_ids = true;
    // vLLM only reports logprobs when the `logprobs` switch is on.
    body.logprobs = true;
  }
  return body;
}
