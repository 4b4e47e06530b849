/** τ²-bench airline / retail as an `Environment`: tasks, the agent's prompt and tools, episodes, grading; gold actions as hints. */
import type { Environment, Episode, ToolResult } from "../../spec/environment.js";
import type { RewardInfo } from "../../spec/reward.js";
import type { TerminationReason } from "../../spec/trajectory.js";
import type { Message, ToolCall } from "../../spec/message.js";
import type { Task } from "../../spec/task.js";
import type { DatabaseState } from "../core/copy-on-write-database.js";
import { agentSystemPrompt, tau2ConversationRules } from "./conversation-rules.js";
import type { Tau2DomainData } from "./domain-data.js";
import { gradeTau2, toRewardInfo } from "./grade.js";
import type { Tau2Task } from "./task-schema.js";
import { formatUserScenario } from "./user-scenario.js";
import { TraceError } from "../../spec/trace-error.js";
import { solutionHint } from "../core/solution-hint.js";

/** A task id the environment does not have. */
export class UnknownTaskError extends TraceError {
  override readonly name = "UnknownTaskError";
  constructor(
    readonly taskId: string,
    readonly environment: string,
  ) {
    super(`${environment} has no task ${JSON.stringify(taskId)}`, { category: "usage" });
  }
}

/** An episode: one fresh database state and the domain's tools over it (executed synchronously). */
export interface Tau2Episode<Tables extends Record<string, object>> extends Episode {
  readonly state: DatabaseState<Tables>;
  executeToolCall(call: ToolCall): ToolResult;
}

/** Wraps loaded domain data as the environment protocol. */
export function createTau2Environment<Tables extends Record<string, object>>(
  data: Tau2DomainData<Tables>,
  options: { maxSteps?: number; maxErrors?: number } = {},
): Omit<Environment, "start" | "grade"> & {
  data: Tau2DomainData<Tables>;
  tau2Task(task: Task): Tau2Task;
  start(task: Task): Tau2Episode<Tables>;
  grade(task: Task, messages: readonly Message[], termination: TerminationReason): RewardInfo;
} {
  const name = `tau2-${data.domain.name}`;
  const byId = new Map<string, { task: Task; raw: Tau2Task }>();
  for (const raw of data.tasks) {
    const task: Task = { id: raw.id, userInstructions: formatUserScenario(raw.user_scenario), raw };
    if (raw.user_scenario.persona != null) task.userPersona = raw.user_scenario.persona;
    byId.set(raw.id, { task, raw });
  }
  const lookup = (id: string) => {
    const entry = byId.get(id);
    if (entry === undefined) throw new UnknownTaskError(id, name);
    return entry;
  };
  const systemPrompt = agentSystemPrompt(data.policy);
  const tools = data.toolKit.specs();
  const readTools = data.toolKit.names.filter((tool) => data.toolKit.kind(tool) === "read");
  return {
    name,
    data,
    rules: tau2ConversationRules(options),
    tasks: () => [...byId.values()].map((entry) => entry.task),
    task: (id) => lookup(id).task,
    tau2Task: (task) => lookup(task.id).raw,
    systemPrompt: () => systemPrompt,
    tools: () => tools,
    readTools: () => readTools,
    hint(task) {
      const criteria = lookup(task.id).raw.evaluation_criteria;
      return solutionHint(criteria?.actions ?? [], criteria?.communicate_info ?? []);
    },
    start(task) {
      lookup(task.id);
      const state = data.database.createState();
      return { task, state, executeToolCall: (call) => data.toolKit.execute(state, call.function.name, call.function.arguments) };
    },
    grade: (task, messages, termination) => toRewardInfo(gradeTau2(data, lookup(task.id).raw, messages, termination)),
  };
}
