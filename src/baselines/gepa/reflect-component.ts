/** Reflective mutation's proposal step: asks the reflection model for a new text of one component. */
import type { ChatClient } from "../../models/chat-client.js";
import type { Candidate, EvaluationOutcome } from "./candidate.js";
import { extractProposedText, reflectionPromptText } from "./reflection-prompt.js";
import { ReflectionReplyError } from "./reflection-reply-error.js";

export interface ReflectionModel {
  client: ChatClient;
  temperature?: number;
  maxTokens?: number;
  /** Longest trace shown per example, in characters (default 6000). */
  maxTraceChars?: number;
}

/** The reflection model's new text for `component` of `candidate`, from the candidate's outcomes on a minibatch. */
export async function reflectComponent(reflection: ReflectionModel, candidate: Candidate, component: string, outcomes: readonly EvaluationOutcome[]): Promise<string> {
  const prompt = reflectionPromptText(component, candidate[component] ?? "", outcomes, reflection.maxTraceChars);
  const request: Parameters<ChatClient["complete"]>[0] = { messages: [{ role: "user", content: prompt }] };
  if (reflection.temperature !== undefined) request.temperature = reflection.temperature;
  if (reflection.maxTokens !== undefined) request.maxTokens = reflection.maxTokens;
  const completion = await reflection.client.complete(request);
  const text = extractProposedText(completion.message.content ?? "");
  if (text === "") throw new ReflectionReplyError(component, completion.message.content);
  return text;
}
