/** Reflective mutation's proposal step: asks the reflection model for a new text of one component. */
import type { ChatClient } from "../../models/chat-client.js";
import { isContextOverflow } from "../../models/endpoint-failure.js";
import type { Candidate, EvaluationOutcome } from "./candidate.js";
import { DEFAULT_MAX_TRACE_CHARS, extractProposedText, reflectionPromptText } from "./reflection-prompt.js";
import { ReflectionReplyError } from "./reflection-reply-error.js";

export interface ReflectionModel {
  client: ChatClient;
  temperature?: number;
  maxTokens?: number;
  /** Sampling seed of the request (every retry with shorter traces keeps it). */
  seed?: number;
  /** Longest trace shown per example, in characters (default 6000). */
  maxTraceChars?: number;
}

/** The shortest trace per example a reflection is tried with before the proposal is given up. */
const MIN_TRACE_CHARS = 250;

/**
 * The reflection model's new text for `component` of `candidate`, from the candidate's outcomes on a minibatch. When
 * the reflection model refuses the prompt as longer than its context (a small model reflecting on a large minibatch),
 * the traces are cut to half their length and the request sent again, down to `MIN_TRACE_CHARS`; past that the
 * proposal is skipped (`ReflectionReplyError`), as one with an empty reply is.
 */
export async function reflectComponent(reflection: ReflectionModel, candidate: Candidate, component: string, outcomes: readonly EvaluationOutcome[]): Promise<string> {
  let traceChars = reflection.maxTraceChars ?? DEFAULT_MAX_TRACE_CHARS;
  for (;;) {
    const prompt = reflectionPromptText(component, candidate[component] ?? "", outcomes, traceChars);
    const request: Parameters<ChatClient["complete"]>[0] = { messages: [{ role: "user", content: prompt }] };
    if (reflection.temperature !== undefined) request.temperature = reflection.temperature;
    if (reflection.maxTokens !== undefined) request.maxTokens = reflection.maxTokens;
    if (reflection.seed !== undefined) request.seed = reflection.seed;
    let content: string | null;
    try {
      content = (await reflection.client.complete(request)).message.content;
    } catch (error) {
      if (!isContextOverflow(error)) throw error;
      if (traceChars <= MIN_TRACE_CHARS) throw new ReflectionReplyError(component, null, `the prompt does not fit the reflection model's context even with traces cut to ${traceChars} characters`);
      const longest = Math.max(0, ...outcomes.map((outcome) => outcome.trace.trim().length));
      traceChars = Math.max(MIN_TRACE_CHARS, Math.floor(Math.min(traceChars, longest) / 2));
      continue;
    }
    const text = extractProposedText(content ?? "");
    if (text === "") throw new ReflectionReplyError(component, content);
    return text;
  }
}
