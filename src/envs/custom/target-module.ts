/**
 * The interface of a user's own target environment (`target.kind: "module"`): a TypeScript or JavaScript module that
 * exports its tools (JSON Schema), its tasks, tool execution over the user's own state and a grader. These types are
 * published as `trace-agent/target`; the worked example is `examples/ticketing/`. An MCP target (`target.kind: "mcp"`)
 * is turned into the same shape (`mcp-target.ts`), so one environment adapter (`custom-environment.ts`) serves both.
 *
 * A user's module is the user's own code: it runs in the trace process, not in the sandbox that generated modules get.
 */
import type { Message } from "../../spec/message.js";
import type { Task } from "../../spec/task.js";
import type { TerminationReason } from "../../spec/trajectory.js";

/** One tool the agent may call: an OpenAI function definition plus what it does to state. */
export interface TargetTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object (`{type: "object", properties, required}`); arguments are checked against it. */
  parameters: Record<string, unknown>;
  /** `read` tools do not change state; `write` tools do (synthesis and analysis use this). Default `write`. */
  kind?: "read" | "write";
}

/** One task: what the (simulated) user wants, and optionally the scripted user's lines. */
export interface TargetTask {
  /** Unique within the target. */
  id: string;
  /** The user's instructions (the LLM user's scenario; the router sees the first user message). */
  instructions: string;
  /** Scripted user: the lines the user says in order (then `###STOP###`). Without it the user is `instructions` as one line, or the LLM user. */
  userMessages?: string[];
  persona?: string;
  /** `train` (analysis and training; the default) or `test` (evaluation only). */
  split?: "train" | "test";
  /** What success means, for an LLM-judge grader. */
  rubric?: string;
  /** Anything the module needs (initial state, expected outcome); kept verbatim with the task. */
  data?: unknown;
}

/** What a grader sees: the task, the conversation, how it ended, the episode's final state and a way to call tools on it. */
export interface GradeInput<State = unknown> {
  task: TargetTask;
  messages: readonly Message[];
  termination: TerminationReason;
  state: State;
  /** Calls one of the target's tools on the episode's final state (e.g. a read tool to check what was written). */
  callTool(name: string, args: Record<string, unknown>): Promise<unknown>;
}

/** A grader's answer: a reward in [0, 1], with an optional success label (default: reward is 1) and breakdown. */
export interface GradeResult {
  reward: number;
  success?: boolean;
  breakdown?: Record<string, number>;
  details?: Record<string, unknown>;
}

/** Overrides of the conversation rules (defaults: τ²-bench's greeting, stop tokens and error limit). */
export interface TargetRules {
  greeting?: string | null;
  userStopTokens?: string[];
  agentStopToken?: string | null;
  maxErrors?: number;
}

/** A user's target environment, as the module's default export (or its named exports). */
export interface TargetModule<State = unknown> {
  /** The environment's name in stores and reports (letters, digits, `.`, `_`, `-`). */
  name: string;
  /** The agent's policy (its system prompt is τ²-bench's agent instructions around it); also shown to the environment generator. */
  policy?: string;
  /** A full system prompt instead of the policy wrapped in τ²-bench's agent instructions. */
  systemPrompt?: string;
  tools: TargetTool[];
  /** The tasks, or a function returning them. */
  tasks: TargetTask[] | (() => TargetTask[] | Promise<TargetTask[]>);
  rules?: TargetRules;
  /** A fresh state for one episode of a task (default: `undefined`). */
  createState?(task: TargetTask): State | Promise<State>;
  /** Runs one tool call; returns a string (sent as is) or a JSON value. Throwing refuses the call: the agent sees `Error: <message>`. */
  runTool(call: { name: string; arguments: Record<string, unknown>; state: State; task: TargetTask }): unknown;
  /** Scores a finished episode: a number in [0, 1] or a `GradeResult`. */
  grade(input: GradeInput<State>): number | GradeResult | Promise<number | GradeResult>;
  /** Releases an episode's state after grading (e.g. closes a connection). */
  disposeState?(state: State): void | Promise<void>;
}

/** A target task as the rollout layer sees it, with the target's own task kept in `raw`. */
export function asTask(task: TargetTask): Task {
  return { id: task.id, userInstructions: task.instructions, ...(task.persona === undefined ? {} : { userPersona: task.persona }), raw: task };
}

/** The target's own task behind a rollout task. */
export function targetTaskOf(task: Task): TargetTask {
  return task.raw as TargetTask;
}
