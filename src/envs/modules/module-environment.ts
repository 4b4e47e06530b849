/**
 * A capability module as an `Environment`: one task per seed (`seed-17`), τ²-bench's conversation rules and agent
 * prompt around the module's policy, the module's tools, episodes over its JSON state, and grading by the module's
 * verifier on the replayed conversation. Instances are generated once, when the environment is created. The module's
 * read tools and each instance's solution (as GRPO's hint) are exposed too.
 */
import type { ModuleInstance } from "./capability-module.js";
import type { Environment, Episode } from "../../spec/environment.js";
import type { Task } from "../../spec/task.js";
import type { ToolSpec } from "../../spec/tool-spec.js";
import { agentSystemPrompt, tau2ConversationRules } from "../tau2/conversation-rules.js";
import type { ModuleRunner } from "./module-runner.js";
import { executeModuleToolCall } from "./module-tool-call.js";
import { checkVerdict } from "./module-verdict.js";
import { verifierInputFromMessages } from "./verifier-input.js";
import { TraceError } from "../../spec/trace-error.js";
import { solutionHint } from "../core/solution-hint.js";

/** A task id that is not `seed-N` for one of the environment's seeds. */
export class UnknownSeedTaskError extends TraceError {
  override readonly name = "UnknownSeedTaskError";
  constructor(
    readonly taskId: string,
    readonly environment: string,
  ) {
    super(`${environment} has no task ${JSON.stringify(taskId)} (task ids are seed-N for the environment's seeds)`, { category: "usage" });
  }
}

export interface ModuleEnvironmentOptions {
  runner: ModuleRunner;
  /** Seeds to expose as tasks (default 0…99). */
  seeds?: readonly number[];
  /** Environment name (default `synthetic-<capability>`). */
  name?: string;
  maxSteps?: number;
  maxErrors?: number;
}

/** The environment plus access to each task's generated instance. */
export interface ModuleEnvironment extends Environment {
  readonly runner: ModuleRunner;
  instance(task: Task): ModuleInstance;
}

/** Task id of a seed. */
export function seedTaskId(seed: number): string {
  return `seed-${seed}`;
}

/** What a simulated user is told (for an LLM user simulator): the request and the follow-ups in order. */
function userInstructions(instance: ModuleInstance): string {
  const followUps = instance.followUps.map((line, index) => `${index + 1}. ${line}`).join("\n");
  return instance.followUps.length === 0 ? instance.request : `${instance.request}\n\nThen, one per reply of the agent:\n${followUps}`;
}

/** Generates every seed's instance and returns the environment. */
export async function createModuleEnvironment(options: ModuleEnvironmentOptions): Promise<ModuleEnvironment> {
  const { runner } = options;
  const name = options.name ?? `synthetic-${runner.capability}`;
  const seeds = options.seeds ?? Array.from({ length: 100 }, (_, index) => index);
  const byId = new Map<string, { task: Task; instance: ModuleInstance }>();
  for (const seed of seeds) {
    const instance = await runner.generate(seed);
    const id = seedTaskId(seed);
    byId.set(id, { task: { id, userInstructions: userInstructions(instance), raw: { seed } }, instance });
  }
  const lookup = (id: string) => {
    const entry = byId.get(id);
    if (entry === undefined) throw new UnknownSeedTaskError(id, name);
    return entry;
  };
  const systemPrompt = agentSystemPrompt(runner.policy);
  const tools = runner.tools as unknown as ToolSpec[];
  return {
    name,
    runner,
    rules: tau2ConversationRules({ maxSteps: options.maxSteps ?? 50, maxErrors: options.maxErrors ?? 10 }),
    tasks: () => [...byId.values()].map((entry) => entry.task),
    task: (id) => lookup(id).task,
    instance: (task) => lookup(task.id).instance,
    systemPrompt: () => systemPrompt,
    tools: () => tools,
    readTools: () => runner.readTools,
    hint(task) {
      const { solution, mustSay } = lookup(task.id).instance;
      return solutionHint(solution, mustSay);
    },
    start(task): Episode {
      let state = lookup(task.id).instance.state;
      return {
        task,
        async executeToolCall(call) {
          const result = await executeModuleToolCall(runner, state, call.function.name, call.function.arguments);
          state = result.state;
          return { content: result.output, error: result.error };
        },
      };
    },
    async grade(task, messages, termination) {
      const input = await verifierInputFromMessages(runner, lookup(task.id).instance, messages);
      const verdict = checkVerdict(await runner.verify(input));
      return { reward: verdict.reward, success: verdict.success, breakdown: verdict.breakdown, details: { termination } };
    },
  };
}
