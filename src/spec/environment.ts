/** The environment protocol: every environment (target, synthetic, user-provided) implements it. */
import type { Message, ToolCall } from "./message.js";
import type { RewardInfo } from "./reward.js";
import type { Task } from "./task.js";
import type { ToolSpec } from "./tool-spec.js";
import type { TerminationReason } from "./trajectory.js";

/** Result of executing one tool call: the observation text returned to the agent. */
export interface ToolResult {
  content: string;
  error: boolean;
}

/**
 * One episode's live state: tool execution against a fresh copy of the environment's state. Execution may be
 * asynchronous (a sandboxed synthetic environment); the agent loop awaits it.
 */
export interface Episode {
  readonly task: Task;
  executeToolCall(call: ToolCall): ToolResult | Promise<ToolResult>;
  /**
   * Executes one assistant message's calls together (results in call order), for environments whose parallel calls
   * are not independent calls in sequence (ToolSandbox tries every order). The agent loop prefers it when present.
   */
  executeToolCalls?(calls: readonly ToolCall[]): readonly ToolResult[] | Promise<readonly ToolResult[]>;
  /** Releases what the episode holds (e.g. a tool server started for it); the agent loop calls it once, after grading. */
  close?(): void | Promise<void>;
}

/** Rules of the conversation that the agent loop enforces. */
export interface ConversationRules {
  /** The agent's fixed first message, if any. */
  greeting?: string;
  /** Substrings that end the episode when they appear in a user message. */
  userStopTokens: readonly string[];
  /** Substring that ends the episode when it appears in an assistant message. */
  agentStopToken?: string;
  maxSteps: number;
  maxErrors: number;
}

export interface Environment {
  readonly name: string;
  readonly rules: ConversationRules;
  tasks(): readonly Task[];
  task(id: string): Task;
  /** The agent's system prompt. */
  systemPrompt(task: Task): string;
  /** Tools offered to the agent. */
  tools(task: Task): readonly ToolSpec[];
  /** Names of the tools that only read state (GRPO drops turns that call nothing else from its training data); absent: unknown. */
  readTools?(task: Task): readonly string[];
  /**
   * Guidance from the task's ground truth (e.g. its solution's tool calls), shown in the system prompt of GRPO's hinted
   * rollouts and swapped out before the update; absent or undefined: the task has none.
   */
  hint?(task: Task): string | undefined;
  /** Start an episode on a fresh state. */
  start(task: Task): Episode;
  /**
   * Grade a finished conversation (asynchronously for a sandboxed synthetic environment). The agent loop passes the
   * live episode: environments whose state cannot be rebuilt from the messages (a user's own tools) grade that state.
   */
  grade(task: Task, messages: readonly Message[], termination: TerminationReason, episode?: Episode): RewardInfo | Promise<RewardInfo>;
}
