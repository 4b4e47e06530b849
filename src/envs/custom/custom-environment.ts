/**
 * A user's target (a `TargetModule`, or an MCP server turned into one) as an `Environment` of the project's protocol:
 * τ²-bench's conversation rules unless the target overrides them, arguments checked against each tool's JSON Schema,
 * a refused call shown to the agent as `Error: …`, and the grader run on the live episode's final state. As in
 * τ²-bench, an episode that ends other than by a stop (max steps, too many errors, an agent or user error) scores 0
 * without calling the grader.
 *
 * Failures of the target itself are not the agent's: a state that cannot be created, a tool server that is gone
 * (`TargetUnavailableError`), a grader that throws or returns something other than a reward in [0, 1] — each throws,
 * so the rollout runner records the episode as an error (redone on the next run) and goes on with the others.
 */
import { Ajv, type ValidateFunction } from "ajv";
import type { ConversationRules, Environment, Episode, ToolResult } from "../../spec/environment.js";
import type { Message, ToolCall } from "../../spec/message.js";
import type { RewardInfo } from "../../spec/reward.js";
import type { Task } from "../../spec/task.js";
import type { ToolSpec } from "../../spec/tool-spec.js";
import type { TerminationReason } from "../../spec/trajectory.js";
import { agentSystemPrompt, tau2ConversationRules } from "../tau2/conversation-rules.js";
import type { LoadedTargetModule } from "./load-target-module.js";
import { asTask, targetTaskOf, type GradeResult, type TargetModule, type TargetTask } from "./target-module.js";
import { TraceError } from "../../spec/trace-error.js";

/** The target's tool server or state is gone: the episode is an error, not a refused call. */
export class TargetUnavailableError extends TraceError {
  override readonly name = "TargetUnavailableError";
  constructor(
    readonly target: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(`target ${target}: ${message}`, { category: "target", cause: options.cause });
  }

  static override isInstance(value: unknown): value is TargetUnavailableError {
    return value instanceof Error && value.name === "TargetUnavailableError";
  }
}

/** A grader that threw, or answered something other than a reward in [0, 1]; carries what it returned. */
export class TargetGradeError extends TraceError {
  override readonly name = "TargetGradeError";
  constructor(
    readonly target: string,
    readonly taskId: string,
    readonly value: unknown,
    problem: string,
  ) {
    super(`target ${target}: the grader of task ${taskId} ${problem}`, { category: "target" });
  }
}

/** A target's environment, with the target and its tasks by split. */
export interface CustomEnvironment extends Environment {
  readonly target: TargetModule;
  /** What each tool does to state (`write` unless the target says `read`). */
  readonly toolKinds: ReadonlyMap<string, "read" | "write">;
  /** Tasks of analysis and training (split `train`, the default). */
  trainTasks(): Task[];
  /** Tasks of evaluation (split `test`); empty when the target has none. */
  testTasks(): Task[];
}

/** Options of `createCustomEnvironment`. */
export interface CustomEnvironmentOptions {
  maxSteps: number;
  maxErrors?: number;
}

const GRADED: readonly TerminationReason[] = ["agent_stop", "user_stop"];

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function rulesOf(target: TargetModule, options: CustomEnvironmentOptions): ConversationRules {
  const base = tau2ConversationRules({ maxSteps: options.maxSteps, maxErrors: target.rules?.maxErrors ?? options.maxErrors });
  const overrides = target.rules ?? {};
  const rules: ConversationRules = { ...base, ...(overrides.userStopTokens === undefined ? {} : { userStopTokens: overrides.userStopTokens }) };
  if (overrides.greeting === null) delete rules.greeting;
  else if (overrides.greeting !== undefined) rules.greeting = overrides.greeting;
  if (overrides.agentStopToken === null) delete rules.agentStopToken;
  else if (overrides.agentStopToken !== undefined) rules.agentStopToken = overrides.agentStopToken;
  return rules;
}

/** Checks a grader's answer and turns it into the protocol's reward. */
function rewardOf(targetName: string, task: TargetTask, value: unknown, termination: TerminationReason): RewardInfo {
  const result: GradeResult | undefined = typeof value === "number" ? { reward: value } : typeof value === "object" && value !== null ? (value as GradeResult) : undefined;
  const reward = result?.reward;
  if (typeof reward !== "number" || !Number.isFinite(reward) || reward < 0 || reward > 1) {
    throw new TargetGradeError(targetName, task.id, value, `returned ${describe(value)}, not a reward in [0, 1] (a number, or {reward, success?, breakdown?})`);
  }
  if (result!.success !== undefined && typeof result!.success !== "boolean") throw new TargetGradeError(targetName, task.id, value, `returned success ${describe(result!.success)}, not a boolean`);
  const breakdown = result!.breakdown ?? { reward };
  if (typeof breakdown !== "object" || Object.values(breakdown).some((part) => typeof part !== "number" || !Number.isFinite(part))) {
    throw new TargetGradeError(targetName, task.id, value, "returned a breakdown that is not an object of finite numbers");
  }
  return { reward, success: result!.success ?? reward === 1, breakdown, details: { termination, ...(result!.details ?? {}) } };
}

function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The environment of a loaded target. */
export function createCustomEnvironment(loaded: LoadedTargetModule, options: CustomEnvironmentOptions): CustomEnvironment {
  const { module: target } = loaded;
  const tasks = loaded.tasks.map(asTask);
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validators = new Map<string, ValidateFunction>(target.tools.map((tool) => [tool.name, ajv.compile(tool.parameters)]));
  const specs: ToolSpec[] = target.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
  const systemPrompt = target.systemPrompt ?? agentSystemPrompt(target.policy ?? "");
  const states = new WeakMap<Episode, Promise<unknown>>();

  async function runTool(state: unknown, task: TargetTask, name: string, args: Record<string, unknown>): Promise<unknown> {
    return await target.runTool({ name, arguments: args, state, task });
  }

  async function execute(state: unknown, task: TargetTask, call: ToolCall): Promise<ToolResult> {
    const name = call.function.name;
    const validate = validators.get(name);
    if (validate === undefined) return { content: `Error: Tool '${name}' not found.`, error: true };
    let args: unknown;
    try {
      args = call.function.arguments.trim() === "" ? {} : JSON.parse(call.function.arguments);
    } catch (error) {
      return { content: `Error: Tool arguments for ${name} are not valid JSON: ${errorText(error)}`, error: true };
    }
    if (!validate(args)) {
      const problems = (validate.errors ?? []).map((issue) => `${issue.instancePath === "" ? "(arguments)" : issue.instancePath.slice(1).replaceAll("/", ".")} ${issue.message ?? "is invalid"}`);
      return { content: `Error: invalid arguments for ${name}: ${problems.join("; ")}`, error: true };
    }
    try {
      const value = await runTool(state, task, name, args as Record<string, unknown>);
      return { content: typeof value === "string" ? value : (JSON.stringify(value) ?? "null"), error: false };
    } catch (error) {
      if (TargetUnavailableError.isInstance(error)) throw error;
      return { content: `Error: ${errorText(error)}`, error: true };
    }
  }

  return {
    name: target.name,
    target,
    toolKinds: new Map(target.tools.map((tool) => [tool.name, tool.kind ?? "write"])),
    rules: rulesOf(target, options),
    tasks: () => tasks,
    task(id) {
      const task = byId.get(id);
      if (task === undefined) throw new TargetModuleTaskError(target.name, id);
      return task;
    },
    trainTasks: () => tasks.filter((task) => targetTaskOf(task).split !== "test"),
    testTasks: () => tasks.filter((task) => targetTaskOf(task).split === "test"),
    systemPrompt: () => systemPrompt,
    tools: () => specs,
    readTools: () => target.tools.filter((tool) => tool.kind === "read").map((tool) => tool.name),
    start(task): Episode {
      const own = targetTaskOf(task);
      const state = (async () => {
        try {
          return await target.createState?.(own);
        } catch (error) {
          if (TargetUnavailableError.isInstance(error)) throw error;
          throw new TargetUnavailableError(target.name, `createState of task ${task.id} failed: ${errorText(error)}`, { cause: error });
        }
      })();
      state.catch(() => undefined);
      const episode: Episode = {
        task,
        executeToolCall: async (call) => execute(await state, own, call),
        async close() {
          if (target.disposeState === undefined) return;
          const value = await state.catch(() => undefined);
          if (value !== undefined) await target.disposeState(value);
        },
      };
      states.set(episode, state);
      return episode;
    },
    async grade(task, messages: readonly Message[], termination, episode) {
      const own = targetTaskOf(task);
      const state = episode === undefined ? undefined : states.get(episode);
      if (state === undefined) throw new TargetGradeError(target.name, task.id, undefined, "needs the live episode (a user's target grades its final state, not a stored conversation)");
      const final = await state;
      if (!GRADED.includes(termination)) return { reward: 0, success: false, breakdown: { reward: 0 }, details: { termination, note: "not graded: the episode did not end with a stop" } };
      let value: unknown;
      try {
        value = await target.grade({ task: own, messages, termination, state: final, callTool: (name, args) => runTool(final, own, name, args) });
      } catch (error) {
        if (TargetUnavailableError.isInstance(error)) throw error;
        throw new TargetGradeError(target.name, task.id, undefined, `threw: ${errorText(error)}`);
      }
      return rewardOf(target.name, own, value, termination);
    },
  };
}

/** A task id the target does not have. */
export class TargetModuleTaskError extends TraceError {
  override readonly name = "TargetModuleTaskError";
  constructor(
    readonly target: string,
    readonly taskId: string,
  ) {
    super(`target ${target} has no task ${JSON.stringify(taskId)}`, { category: "target" });
  }
}
