/**
 * The zod schema of a non-streaming chat-completions response, OpenAI fields plus vLLM's extras:
 * top-level `prompt_token_ids` and per-choice `token_ids` (sent when the request had `return_token_ids: true`).
 * Unknown fields are ignored; the caller keeps the raw body.
 */
import { z } from "zod";

const tokenLogprob = z.object({ token: z.string(), logprob: z.number() });

const logprobEntry = tokenLogprob.extend({ top_logprobs: z.array(tokenLogprob).nullish() });

const toolCall = z.object({
  id: z.string(),
  type: z.literal("function").default("function"),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

const choice = z.object({
  message: z.object({
    role: z.literal("assistant").optional(),
    content: z.string().nullish(),
    tool_calls: z.array(toolCall).nullish(),
  }),
  finish_reason: z.string().nullish(),
  logprobs: z.object({ content: z.array(logprobEntry).nullish() }).nullish(),
  token_ids: z.array(z.int()).nullish(),
});

export const chatResponseSchema = z.object({
  choices: z.array(choice).min(1, "expected at least one choice"),
  usage: z.object({ prompt_tokens: z.int().nonnegative(), completion_tokens: z.int().nonnegative() }).nullish(),
  prompt_token_ids: z.array(z.int()).nullish(),
});

