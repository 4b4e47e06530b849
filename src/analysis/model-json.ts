/** Reading a JSON object out of a model's reply: reasoning blocks and code fences removed, then the outermost braces. */

/** The JSON object in `text`, or an explanation of why there is none. */
export function extractJsonObject(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const cleaned = text.replace(/<think>[\s\S]*?<\/think>/g, "").replace(/```(?:json)?/g, "");
  const start = cleaned.indexOf("{");
  const end = cleaned.lastIndexOf("}");
  if (start < 0 || end <= start) return { ok: false, problem: "the reply holds no JSON object" };
  try {
    return { ok: true, value: JSON.parse(cleaned.slice(start, end + 1)) as unknown };
  } catch (error) {
    return { ok: false, problem: `the reply is not valid JSON (${(error as Error).message})` };
  }
}
