/** A task's ground truth as hint text for GRPO's hinted rollouts: the solution's tool calls in order and what to say. */

/** One tool call of a ground-truth solution. */
export interface HintCall {
  name: string;
  arguments: unknown;
}

/** The hint text, or undefined when the ground truth has neither calls nor things to say. */
export function solutionHint(calls: readonly HintCall[], say: readonly string[] = []): string | undefined {
  const lines: string[] = [];
  if (calls.length > 0) {
    lines.push("A correct solution makes these tool calls, in this order:");
    for (const call of calls) lines.push(`- ${call.name}(${JSON.stringify(call.arguments ?? {})})`);
  }
  if (say.length > 0) lines.push(`Tell the user: ${say.join("; ")}.`);
  return lines.length === 0 ? undefined : lines.join("\n");
}
