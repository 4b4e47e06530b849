/** Trajectories: the messages of one episode, how it ended, and its reward. */
import type { Message } from "./message.js";
import type { RewardInfo } from "./reward.js";

/** Why an episode ended; only `agent_stop` and `user_stop` are graded, every other reason scores 0 (τ²-bench rule). */
export type TerminationReason =
  | "agent_stop"
  | "user_stop"
  | "max_steps"
  | "too_many_errors"
  | "agent_error"
  | "user_error";

export const TERMINATION_REASONS: readonly TerminationReason[] = [
  "agent_stop",
  "user_stop",
  "max_steps",
  "too_many_errors",
  "agent_error",
  "user_error",
];

export interface Trajectory {
  /** Environment name, e.g. `tau2-airline`. */
  environment: string;
  taskId: string;
  trial: number;
  seed?: number;
  messages: Message[];
  termination: TerminationReason;
  reward?: RewardInfo;
}
