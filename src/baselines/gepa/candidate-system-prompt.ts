/**
 * How a candidate reaches the agent: each component (a kept capability's description) is appended to the
 * environment's system prompt under a "Capabilities" heading, one subsection per capability, in the candidate's order.
 */
import type { Environment } from "../../spec/environment.js";
import type { Task } from "../../spec/task.js";
import type { Candidate } from "./candidate.js";

/** The seed candidate of the TRACE baseline: one component per kept capability, its description as the text. */
export function seedCandidateFromCapabilities(capabilities: readonly { name: string; description: string }[]): Candidate {
  return Object.fromEntries(capabilities.map((capability) => [capability.name, capability.description]));
}

/** `base` followed by the candidate's texts; the empty candidate (no components) leaves `base` as it is. */
function candidateSystemPrompt(base: string, candidate: Candidate): string {
  const sections = Object.entries(candidate).map(([name, text]) => `### ${name}\n\n${text.trim()}`);
  if (sections.length === 0) return base;
  return `${base.trimEnd()}\n\n## Capabilities\n\nApply these capabilities throughout the conversation.\n\n${sections.join("\n\n")}`;
}

/** The environment with the candidate appended to every task's system prompt; everything else is the environment's. */
export function withCandidatePrompt<Wrapped extends Environment>(environment: Wrapped, candidate: Candidate): Wrapped {
  return new Proxy(environment, {
    get(target, property, receiver) {
      if (property === "systemPrompt") return (task: Task) => candidateSystemPrompt(target.systemPrompt(task), candidate);
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
