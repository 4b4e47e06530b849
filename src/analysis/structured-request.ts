/**
 * One structured request to the analyst: the prompt is sent, the reply parsed as JSON and validated; an invalid reply
 * (or a failed request) is answered with the list of problems and asked again, up to `maxAttempts` times in all. The
 * outcome is the validated value or every problem met — never a made-up value.
 */
import type { ChatClient } from "../models/chat-client.js";
import type { Message } from "../spec/message.js";
import { extractJsonObject } from "./model-json.js";
import { shorten } from "../rollout/render-trajectory.js";

export type Validation<T> = { ok: true; value: T } | { ok: false; problems: string[] };

export interface StructuredRequestOptions<T> {
  client: ChatClient;
  prompt: string;
  validate: (value: unknown) => Validation<T>;
  maxAttempts: number;
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

export type StructuredOutcome<T> = { ok: true; value: T; attempts: number } | { ok: false; problems: string[]; attempts: number };

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Sends the prompt and retries with feedback until the reply validates or the attempts run out. */
export async function requestStructured<T>(options: StructuredRequestOptions<T>): Promise<StructuredOutcome<T>> {
  const messages: Message[] = [{ role: "user", content: options.prompt }];
  let problems: string[] = [];
  for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
    let reply: string;
    try {
      const completion = await options.client.complete({
        messages,
        ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
        ...(options.seed === undefined ? {} : { seed: options.seed + attempt - 1 }),
      });
      reply = completion.message.content ?? "";
    } catch (error) {
      problems = [`request failed: ${errorMessage(error)}`];
      continue;
    }
    const parsed = extractJsonObject(reply);
    const validation: Validation<T> = parsed.ok ? options.validate(parsed.value) : { ok: false, problems: [parsed.problem] };
    if (validation.ok) return { ok: true, value: validation.value, attempts: attempt };
    problems = validation.problems;
    messages.push({ role: "assistant", content: shorten(reply, 4000) });
    messages.push({
      role: "user",
      content: `Your reply could not be used:\n${problems.map((problem) => `- ${problem}`).join("\n")}\nReply again with the complete JSON object only, in the format asked for above.`,
    });
  }
  return { ok: false, problems, attempts: options.maxAttempts };
}
