/** The reflection prompt (`prompts/gepa/reflection.md`): a component's current text and the minibatch's outcomes. */
import path from "node:path";
import { fillPromptFile, PROMPTS_ROOT } from "../../prompts/prompt-file.js";
import { shorten } from "../../rollout/render-trajectory.js";
import type { EvaluationOutcome } from "./candidate.js";

/** `prompts/gepa/reflection.md` of the package (beside `dist/`). */
const REFLECTION_PROMPT_FILE = path.join(PROMPTS_ROOT, "gepa", "reflection.md");

/** The longest trace shown per example unless the caller says otherwise, in characters. */
export const DEFAULT_MAX_TRACE_CHARS = 6000;

/** One block per outcome: its score, its trace (cut to `maxTraceChars`) and its feedback. */
function renderExamples(outcomes: readonly EvaluationOutcome[], maxTraceChars = DEFAULT_MAX_TRACE_CHARS): string {
  return outcomes
    .map((outcome, index) => `### Task ${index + 1} (score ${outcome.score})\n\n#### What happened\n\n${shorten(outcome.trace.trim(), maxTraceChars)}\n\n#### Feedback\n\n${outcome.feedback.trim()}`)
    .join("\n\n");
}

/** The reflection prompt's text for rewriting `component`, whose current text is `currentText`. */
export function reflectionPromptText(component: string, currentText: string, outcomes: readonly EvaluationOutcome[], maxTraceChars?: number): string {
  return fillPromptFile(REFLECTION_PROMPT_FILE, {
    COMPONENT_NAME: component,
    CURRENT_TEXT: currentText,
    EXAMPLES: renderExamples(outcomes, maxTraceChars),
  }).trimEnd();
}

/**
 * The proposed text in a reflection reply (as gepa `strategies/instruction_proposal.py` extracts it): what lies
 * between the first and the last ``` fence, without a language tag; an unclosed fence is dropped; no fence, the reply.
 */
export function extractProposedText(reply: string): string {
  const start = reply.indexOf("```") + 3;
  const end = reply.lastIndexOf("```");
  if (start >= end) {
    const stripped = reply.trim();
    if (stripped.startsWith("```")) return stripped.replace(/^```\S*\n?/, "").trim();
    if (stripped.endsWith("```")) return stripped.slice(0, -3).trim();
    return stripped;
  }
  return reply.slice(start, end).replace(/^\S*\n/, "").trim();
}
