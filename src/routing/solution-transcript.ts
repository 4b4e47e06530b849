/** One successful trajectory of a capability environment: its ground-truth solution played on a seed, as a compact transcript. */
import { solutionReply } from "../envs/modules/module-policies.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";

/** Longest tool output kept in a transcript line. */
const MAX_OUTPUT_CHARACTERS = 160;

function shorten(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

/** `user: …`, `agent → tool(args)`, `tool: …`, `agent: …` lines of the solution played on the seed's instance. */
export async function solutionTranscript(runner: ModuleRunner, seed: number): Promise<string> {
  const instance = await runner.generate(seed);
  const lines = [`user: ${shorten(instance.request, 300)}`];
  let state = instance.state;
  for (const call of instance.solution) {
    const outcome = await runner.runTool(state, call.name, call.arguments);
    state = outcome.state;
    lines.push(`agent → ${call.name}(${JSON.stringify(call.arguments)})`, `tool: ${shorten(outcome.output, MAX_OUTPUT_CHARACTERS)}`);
  }
  lines.push(`agent: ${shorten(solutionReply(instance), 300)}`);
  return lines.join("\n");
}
