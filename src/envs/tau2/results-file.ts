/**
 * τ²-bench results JSON (`{timestamp, info, tasks, simulations}`): validation, conversion of its messages to the
 * OpenAI shape used everywhere else, and export back to the same format so τ²-bench can read our runs.
 */
import { writeFileSync } from "node:fs";
import { z } from "zod";
import type { Message, ToolCall } from "../../spec/message.js";
import { TERMINATION_REASONS, type TerminationReason } from "../../spec/trajectory.js";
import { readJsonFile } from "../core/read-json-file.js";
import type { Tau2RewardInfo } from "./grade.js";
import { taskSchema, type Tau2Task } from "./task-schema.js";
import { TraceError } from "../../spec/trace-error.js";

const toolCallSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  requestor: z.enum(["assistant", "user"]).default("assistant"),
});

const participantMessageSchema = z.looseObject({
  role: z.enum(["assistant", "user"]),
  content: z.string().nullable().optional(),
  tool_calls: z.array(toolCallSchema).nullable().optional(),
});
const toolMessageSchema = z.looseObject({
  role: z.literal("tool"),
  id: z.string(),
  content: z.string().nullable().optional(),
  requestor: z.enum(["assistant", "user"]).default("assistant"),
  error: z.boolean().optional(),
});
const systemMessageSchema = z.looseObject({ role: z.literal("system"), content: z.string().nullable().optional() });
const tau2MessageSchema = z.discriminatedUnion("role", [participantMessageSchema, toolMessageSchema, systemMessageSchema]);
export type Tau2Message = z.infer<typeof tau2MessageSchema>;

const simulationSchema = z.looseObject({
  id: z.string(),
  task_id: z.string(),
  termination_reason: z.enum(TERMINATION_REASONS as [TerminationReason, ...TerminationReason[]]),
  reward_info: z.looseObject({ reward: z.number() }).nullable().optional(),
  messages: z.array(tau2MessageSchema),
  trial: z.number().int().nullable().optional(),
  seed: z.number().int().nullable().optional(),
});

const resultsFileSchema = z.looseObject({
  timestamp: z.string().nullable().optional(),
  info: z.looseObject({}),
  tasks: z.array(taskSchema),
  simulations: z.array(simulationSchema),
});
export type Tau2ResultsFile = z.infer<typeof resultsFileSchema>;

/** One conversation from a results file, with messages in the OpenAI shape. */
export interface Tau2Simulation {
  id: string;
  taskId: string;
  trial: number;
  seed: number | null;
  termination: TerminationReason;
  messages: Message[];
  /** The reward info τ²-bench recorded, if any. */
  recordedRewardInfo: Record<string, unknown> | null;
  /** Fields of the original record kept for export (timestamps, costs). */
  extra: Record<string, unknown>;
}

/** Converts τ²-bench messages to OpenAI-shaped messages (tool-call arguments become JSON text). */
function fromTau2Messages(messages: readonly Tau2Message[]): Message[] {
  return messages.map((message): Message => {
    if (message.role === "tool") {
      const out: Message = { role: "tool", tool_call_id: message.id, content: message.content ?? "" };
      if (message.error !== undefined) out.error = message.error;
      return out;
    }
    if (message.role === "system") return { role: "system", content: message.content ?? "" };
    if (message.role === "user") return { role: "user", content: message.content ?? "" };
    const toolCalls: ToolCall[] | undefined = message.tool_calls?.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: JSON.stringify(call.arguments) },
    }));
    return toolCalls === undefined || toolCalls.length === 0
      ? { role: "assistant", content: message.content ?? null }
      : { role: "assistant", content: message.content ?? null, tool_calls: toolCalls };
  });
}

function parseArgumentsObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text === "" ? "{}" : text) as unknown;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Not JSON: τ²-bench messages can only hold argument objects, so the raw text cannot be kept.
  }
  return {};
}

/** Converts OpenAI-shaped messages to τ²-bench messages (`turn_idx` numbered in order). */
function toTau2Messages(messages: readonly Message[]): Record<string, unknown>[] {
  return messages.map((message, turnIndex) => {
    const common = { turn_idx: turnIndex, timestamp: null };
    switch (message.role) {
      case "tool":
        return { id: message.tool_call_id, role: "tool", content: message.content, requestor: "assistant", error: message.error ?? message.content.startsWith("Error:"), ...common };
      case "system":
        return { role: "system", content: message.content, ...common };
      case "user":
        return { role: "user", content: message.content, tool_calls: null, ...common, cost: null, usage: null, raw_data: null };
      case "assistant":
        return {
          role: "assistant",
          content: message.content,
          tool_calls: message.tool_calls?.length
            ? message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: parseArgumentsObject(call.function.arguments), requestor: "assistant" }))
            : null,
          ...common,
          cost: null,
          usage: null,
          raw_data: null,
        };
    }
  });
}

/** Reads and validates a results file; errors name the file and the offending paths. */
export function readTau2Results(file: string): { file: Tau2ResultsFile; tasks: Tau2Task[]; simulations: Tau2Simulation[] } {
  const parsed = readJsonFile(file, resultsFileSchema);
  const simulations = parsed.simulations.map((record): Tau2Simulation => {
    const { id, task_id, termination_reason, reward_info, messages, trial, seed, ...extra } = record;
    return {
      id,
      taskId: task_id,
      trial: trial ?? 0,
      seed: seed ?? null,
      termination: termination_reason,
      messages: fromTau2Messages(messages),
      recordedRewardInfo: (reward_info ?? null),
      extra,
    };
  });
  return { file: parsed, tasks: parsed.tasks, simulations };
}

/** The domain a results file names (`info.environment_info.domain_name`), or undefined when it names none. */
export function tau2ResultsDomain(file: Tau2ResultsFile): string | undefined {
  const environmentInfo = file.info.environment_info;
  if (environmentInfo === null || typeof environmentInfo !== "object") return undefined;
  const name = (environmentInfo as Record<string, unknown>).domain_name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

/** A results file of one domain used as another's (`requested` came from `option`, e.g. `--domain` or `--env`). */
export class Tau2DomainMismatchError extends TraceError {
  override readonly name = "Tau2DomainMismatchError";
  constructor(
    readonly file: string,
    readonly fileDomain: string,
    readonly requestedDomain: string,
    readonly option: string,
  ) {
    super(`${file}: the results file is of domain ${JSON.stringify(fileDomain)} (info.environment_info.domain_name), but ${option} asks for ${JSON.stringify(requestedDomain)}`, { category: "usage" });
  }
}

/** Refuses a results file that names a domain other than `domain` (one that names none passes). */
export function checkTau2ResultsDomain(file: string, results: Tau2ResultsFile, domain: string, option: string): void {
  const fileDomain = tau2ResultsDomain(results);
  if (fileDomain !== undefined && fileDomain !== domain) throw new Tau2DomainMismatchError(file, fileDomain, domain, option);
}

/** A simulation of a results file whose task is not among the tasks available (`searched` says where they came from). */
export class UnknownTau2TaskError extends TraceError {
  override readonly name = "UnknownTau2TaskError";
  constructor(
    readonly file: string,
    readonly simulationId: string,
    readonly taskId: string,
    readonly searched: string,
  ) {
    super(`${file}: simulation ${simulationId} refers to task ${JSON.stringify(taskId)}, which is not in ${searched}`, { category: "data" });
  }
}

/** Refuses the first simulation whose task id `tasks` lacks. */
export function checkTau2SimulationTasks(file: string, simulations: readonly Tau2Simulation[], tasks: ReadonlySet<string> | ReadonlyMap<string, unknown>, searched: string): void {
  const unknown = simulations.find((simulation) => !tasks.has(simulation.taskId));
  if (unknown !== undefined) throw new UnknownTau2TaskError(file, unknown.id, unknown.taskId, searched);
}

/** τ²-bench's required `info` block (`Info`): who played agent and user, limits, and the domain's policy. */
export function tau2RunInfo(options: {
  domain: string;
  policy: string;
  agent: string;
  user: string;
  maxSteps: number;
  maxErrors: number;
  numTrials?: number;
  seed?: number | null;
}): Record<string, unknown> {
  return {
    git_commit: "trace",
    num_trials: options.numTrials ?? 1,
    max_steps: options.maxSteps,
    max_errors: options.maxErrors,
    user_info: { implementation: options.user, llm: null, llm_args: null, global_simulation_guidelines: null },
    agent_info: { implementation: options.agent, llm: null, llm_args: null },
    environment_info: { domain_name: options.domain, policy: options.policy, tool_defs: null },
    seed: options.seed ?? null,
  };
}

/** Builds a results file from simulations (their reward info as given) and writes it as JSON. */
export function writeTau2Results(
  file: string,
  options: { info: Record<string, unknown>; tasks: readonly Tau2Task[]; simulations: readonly (Tau2Simulation & { rewardInfo?: Tau2RewardInfo | null })[] },
): void {
  const now = new Date().toISOString();
  const document = {
    timestamp: now,
    info: options.info,
    tasks: options.tasks,
    simulations: options.simulations.map((simulation) => ({
      // τ²-bench requires these; conversations made here without timing get the export time and zero duration.
      timestamp: now,
      start_time: now,
      end_time: now,
      duration: 0,
      agent_cost: null,
      user_cost: null,
      ...simulation.extra,
      id: simulation.id,
      task_id: simulation.taskId,
      termination_reason: simulation.termination,
      reward_info: simulation.rewardInfo ?? simulation.recordedRewardInfo,
      messages: toTau2Messages(simulation.messages),
      trial: simulation.trial,
      seed: simulation.seed,
    })),
  };
  writeFileSync(file, JSON.stringify(document, null, 2) + "\n");
}
