/** The module source in a model's answer: its last fenced TypeScript block. */
import { TraceError } from "../../spec/trace-error.js";

/** A model answer without a fenced code block. */
export class MissingCodeBlockError extends TraceError {
  override readonly name = "MissingCodeBlockError";
  constructor(readonly answer: string) {
    super("the answer has no fenced code block (```ts … ```)", { category: "endpoint" });
  }
}

/** The last ```ts / ```typescript block (or the last fenced block of any language) of `answer`. */
export function extractCodeBlock(answer: string): string {
  const blocks = [...answer.matchAll(/```([A-Za-z]*)[^\n]*\n([\s\S]*?)```/g)].map((match) => ({ language: (match[1] ?? "").toLowerCase(), code: match[2] ?? "" }));
  const typed = blocks.filter((block) => block.language === "ts" || block.language === "typescript");
  const chosen = typed.at(-1) ?? blocks.at(-1);
  if (chosen === undefined || chosen.code.trim() === "") throw new MissingCodeBlockError(answer);
  return chosen.code;
}
