/**
 * ToolSandbox as an environment of the project's protocol: one task per scenario (1032, or a chosen subset), the
 * agent's system prompt and tools exactly as the scenario shows them (augmentations included), episodes that run
 * ToolSandbox's tools on a copy of the starting world, and grading by ToolSandbox's own evaluation of the
 * conversation replayed into its tables. Time-dependent tools read the export's frozen "now" and time zone.
 */
import type { ConversationRules, Environment, Episode, ToolResult } from "../../spec/environment.js";
import type { Message, ToolCall } from "../../spec/message.js";
import type { RewardInfo } from "../../spec/reward.js";
import type { Task } from "../../spec/task.js";
import type { ToolSpec } from "../../spec/tool-spec.js";
import type { TerminationReason } from "../../spec/trajectory.js";
import { END_CONVERSATION_TOKEN, executeCalls, replayConversation, toolContext, type ToolContext } from "./conversation-replay.js";
import { crashedEvaluation, evaluateHistory, type ToolSandboxEvaluation } from "./evaluate.js";
import type { ScenarioData, ToolSandboxExport } from "./export-schema.js";
import { databaseSchemas, startingTables, type DatabaseSchemas } from "./execution-history.js";
import { PythonException } from "./python-values.js";
import { SandboxWorld, type SandboxClock } from "./sandbox-world.js";
import { UnknownScenarioError } from "./unknown-scenario-error.js";
import { MissingTimeDependenceError, rebaseExport, type TimeDependentValue } from "./time-rebase.js";

/** Options: which scenarios become tasks. */
export interface ToolSandboxEnvironmentOptions {
  /** Keep only these scenario names (default: all 1032). */
  scenarios?: readonly string[];
  /** Keep only scenarios of these augmentations (`none`, `3_distraction_tools`, …). */
  augmentations?: readonly string[];
  /**
   * A declared "now" and local time zone (default: the export's); another one rebuilds every time-dependent value of
   * the scenarios from `timeDependence` (`time_dependence.json.gz`), which is then required.
   */
  clock?: SandboxClock;
  timeDependence?: readonly TimeDependentValue[];
}

/** The environment's name: every ToolSandbox episode is stored under it. */
export const TOOLSANDBOX_ENVIRONMENT_NAME = "toolsandbox";

/** The conversation rules: the user ends with `end_conversation`; ToolSandbox's own limit is 30 messages, applied when grading. */
export const TOOLSANDBOX_RULES: ConversationRules = { userStopTokens: [END_CONVERSATION_TOKEN], maxSteps: 40, maxErrors: 1000 };

/** The task text ToolSandbox gives its user simulator (after the role-play prefix). */
export function userTask(data: Pick<ToolSandboxExport, "user_instruction_prefix">, scenario: ScenarioData): string {
  const instruction = scenario.messages.filter((message) => message.sender === "SYSTEM" && message.recipient === "USER" && !message.is_user_simulator_few_shot).at(-1);
  const content = instruction?.content ?? "";
  return content.startsWith(data.user_instruction_prefix) ? content.slice(data.user_instruction_prefix.length) : content;
}

/** Every agent tool of ToolSandbox in registry order, as the un-augmented scenarios show it (for synthesis's schema gate). */
export function allAgentTools(data: Pick<ToolSandboxExport, "tools">): { name: string; description: string; parameters: Record<string, unknown> }[] {
  return Object.entries(data.tools)
    .filter(([, info]) => info.visible_to?.includes("AGENT") ?? true)
    .sort(([, a], [, b]) => a.registry_order - b.registry_order)
    .flatMap(([, info]) => {
      const schema = info.openai_schema_by_augmentation.NONE;
      return schema === undefined ? [] : [{ name: schema.function.name, description: schema.function.description, parameters: schema.function.parameters }];
    });
}

/** The scenario's own first user message (sent by the user simulator as its first turn). */
export function firstUserMessage(scenario: ScenarioData): string {
  const index = scenario.starting_context.first_user_sandbox_message_index;
  return scenario.messages.find((message) => message.sandbox_message_index === index)?.content ?? "";
}

/** An episode: the live world and the scenario's tool context. */
export interface ToolSandboxEpisode extends Episode {
  readonly world: SandboxWorld;
  /** The tool trace of the last call executed (null when it raised). */
  readonly lastTrace: string | null;
  executeToolCalls(calls: readonly ToolCall[]): ToolResult[];
}

export type ToolSandboxEnvironment = Omit<Environment, "start" | "grade"> & {
  data: ToolSandboxExport;
  clock: SandboxClock;
  scenario(task: Task): ScenarioData;
  /** The scenario's tool signatures and agent-facing names. */
  toolContext(task: Task): ToolContext;
  start(task: Task): ToolSandboxEpisode;
  evaluate(task: Task, messages: readonly Message[], termination: TerminationReason): ToolSandboxEvaluation;
  grade(task: Task, messages: readonly Message[], termination: TerminationReason): RewardInfo;
};

/** Wraps the export as an environment. */
export function createToolSandboxEnvironment(exported: ToolSandboxExport, options: ToolSandboxEnvironmentOptions = {}): ToolSandboxEnvironment {
  const exportClock: SandboxClock = { now: exported.meta.frozen_now_posix, utcOffsetHours: exported.meta.tz_offset_hours };
  const clock: SandboxClock = options.clock ?? exportClock;
  const rebased = clock.now !== exportClock.now || clock.utcOffsetHours !== exportClock.utcOffsetHours;
  if (rebased && options.timeDependence === undefined) throw new MissingTimeDependenceError(clock);
  const data = rebased ? rebaseExport(exported, options.timeDependence ?? [], clock) : exported;
  const schemas: DatabaseSchemas = databaseSchemas(data);
  const wanted = options.scenarios === undefined ? undefined : new Set(options.scenarios);
  const all = new Map(data.scenarios.map((scenario) => [scenario.name, scenario]));
  for (const name of wanted ?? []) if (!all.has(name)) throw new UnknownScenarioError(name, "--scenarios");
  const chosen = data.scenarios.filter((scenario) => (wanted === undefined || wanted.has(scenario.name)) && (options.augmentations === undefined || options.augmentations.includes(scenario.augmentation)));
  const byId = new Map<string, { task: Task; scenario: ScenarioData; context: ToolContext; tools: ToolSpec[]; system: string }>();
  for (const scenario of chosen) {
    const task: Task = { id: scenario.name, userInstructions: userTask(data, scenario), raw: { root_scenario: scenario.root_scenario, augmentation: scenario.augmentation, categories: scenario.categories, first_user_message: firstUserMessage(scenario) } };
    const system = scenario.messages.filter((message) => message.sender === "SYSTEM" && message.recipient === "AGENT").map((message) => message.content ?? "").join("\n\n");
    byId.set(scenario.name, { task, scenario, context: toolContext(data.tools, scenario), tools: scenario.agent_tool_schemas.map((schema) => ({ type: "function", function: { ...schema.function } })), system });
  }
  const lookup = (task: Task) => {
    const entry = byId.get(task.id);
    if (entry === undefined) throw new UnknownScenarioError(task.id, "toolsandbox");
    return entry;
  };
  const freshWorld = (scenario: ScenarioData) => new SandboxWorld(schemas, startingTables(schemas, scenario), clock, scenario.name);
  const evaluate = (task: Task, messages: readonly Message[], termination: TerminationReason): ToolSandboxEvaluation => {
    const { scenario, context } = lookup(task);
    if (termination === "agent_error" || termination === "user_error") return crashedEvaluation(scenario, termination);
    const world = freshWorld(scenario);
    const replay = replayConversation(world, context, scenario, messages);
    if (replay.crash !== null) return crashedEvaluation(scenario, replay.crash);
    return evaluateHistory(data, scenario, world.history());
  };
  return {
    name: TOOLSANDBOX_ENVIRONMENT_NAME,
    data,
    clock,
    rules: TOOLSANDBOX_RULES,
    tasks: () => [...byId.values()].map((entry) => entry.task),
    task: (id) => {
      const entry = byId.get(id);
      if (entry === undefined) throw new UnknownScenarioError(id, "toolsandbox");
      return entry.task;
    },
    scenario: (task) => lookup(task).scenario,
    toolContext: (task) => lookup(task).context,
    systemPrompt: (task) => lookup(task).system,
    tools: (task) => lookup(task).tools,
    start(task) {
      const { scenario, context } = lookup(task);
      const world = freshWorld(scenario);
      let lastTrace: string | null = null;
      const executeToolCalls = (calls: readonly ToolCall[]): ToolResult[] => {
        lastTrace = null;
        try {
          const responses = executeCalls(world, context, calls);
          lastTrace = responses.at(-1)?.trace ?? null;
          const byCall = new Map(responses.map((response) => [response.callId, response]));
          return calls.map((call) => {
            const response = byCall.get(call.id);
            return response === undefined ? { content: "Error: no response", error: true } : { content: response.content, error: response.exception !== null };
          });
        } catch (error) {
          if (!PythonException.isInstance(error)) throw error;
          // ToolSandbox's agent role raises here (unknown tool, unparsable arguments): the scenario scores 0.
          return calls.map(() => ({ content: `${error.pythonType}: ${error.detail}`, error: true }));
        }
      };
      return {
        task,
        world,
        get lastTrace() {
          return lastTrace;
        },
        executeToolCalls,
        executeToolCall: (call) => executeToolCalls([call])[0] as ToolResult,
      };
    },
    evaluate,
    grade(task, messages, termination) {
      const evaluation = evaluate(task, messages, termination);
      return {
        reward: evaluation.similarity,
        success: evaluation.similarity === 1,
        breakdown: { milestone_similarity: evaluation.milestone_similarity, minefield_similarity: evaluation.minefield_similarity },
        details: { ...evaluation, categories: lookup(task).scenario.categories },
      };
    },
  };
}
