/**
 * Hint injection (TRACE reference: `<expert_guidance>` appended to the system prompt of a share of each group's
 * rollouts): which members of a group are hinted, the hinted prompt, and the environment that serves it. The update
 * then trains on the plain prompt (`grpo-turns.ts`).
 */
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";

/** Members 0 … n − 1 of a group of `samples` get the hint: n = round(share × samples). */
export function hintedMembers(share: number, samples: number): number {
  return Math.min(samples, Math.round(share * samples));
}

/** The system prompt with the hint appended as the reference's `<expert_guidance>` block. */
export function hintedSystemPrompt(systemPrompt: string, hint: string): string {
  return `${systemPrompt}\n\n<expert_guidance>\n${hint}\n</expert_guidance>`;
}

/** The environment with `systemPrompt` answering `prompt` for `task`; everything else is the environment's own. */
export function withSystemPrompt(environment: Environment, task: Task, prompt: string): Environment {
  return new Proxy(environment, {
    get(target, property, receiver) {
      if (property === "systemPrompt") return (asked: Task) => (asked.id === task.id ? prompt : target.systemPrompt(asked));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
