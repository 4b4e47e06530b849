/**
 * Compact text of a trajectory for the analyst: the user's and the agent's messages, each tool call with its
 * arguments and its result, long texts cut in the middle. The system prompt (policy) is left out.
 */
import type { Message } from "../spec/message.js";
import type { RewardInfo } from "../spec/reward.js";

export interface RenderOptions {
  /** Longest tool result kept, in characters (default 600). */
  maxToolResultChars?: number;
  /** Longest user or agent message kept, in characters (default 2000). */
  maxMessageChars?: number;
}

/** A trajectory ready for a prompt. */
export interface RenderedTrajectory {
  key: string;
  failed: boolean;
  reward: number | null;
  text: string;
}

/** Keeps the head and tail of a long text, with the number of characters left out. */
export function shorten(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const head = Math.ceil(limit * 0.7);
  const tail = limit - head;
  return `${text.slice(0, head)} … [${text.length - limit} chars omitted] … ${tail > 0 ? text.slice(-tail) : ""}`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ⏎ ").trim();
}

/**
 * The grader's reasons for a reward below 1, as the reference pipeline's compaction shows them: the breakdown
 * components that failed and, for τ²-style details, the database check, unmatched gold actions and unmet
 * communicate checks.
 */
function failureReasons(rewardInfo: RewardInfo | null | undefined): string[] {
  if (rewardInfo === null || rewardInfo === undefined || rewardInfo.reward >= 1) return [];
  const reasons: string[] = [];
  const failed = Object.entries(rewardInfo.breakdown).filter(([, value]) => value < 1);
  if (failed.length > 0) reasons.push(`failed checks: ${failed.map(([name, value]) => `${name}=${value}`).join(", ")}`);
  const details = rewardInfo.details ?? {};
  const database = details.db_check as { db_match?: unknown } | null | undefined;
  if (database !== null && typeof database === "object" && database.db_match === false) reasons.push("database check: the final database differs from the expected one");
  const actions = details.action_checks;
  if (Array.isArray(actions)) {
    const missed = actions.filter((check): check is { name: string } => typeof check === "object" && check !== null && (check as { match?: unknown }).match === false);
    if (missed.length > 0) reasons.push(`expected actions not taken: ${missed.map((check) => check.name).join(", ")}`);
  }
  const communicate = details.communicate_checks;
  if (Array.isArray(communicate)) {
    const unmet = communicate.filter((check): check is { info: string } => typeof check === "object" && check !== null && (check as { met?: unknown }).met === false);
    if (unmet.length > 0) reasons.push(`information not communicated: ${unmet.map((check) => JSON.stringify(check.info)).join(", ")}`);
  }
  return reasons;
}

/** Renders one trajectory under a header with its id, outcome, reward and how it ended (and, when given, the task's instructions and the grader's failure reasons). */
export function renderTrajectory(
  trajectory: { key: string; failed: boolean; reward: number | null; termination: string | null; messages: readonly Message[]; instructions?: string; rewardInfo?: RewardInfo | null },
  options: RenderOptions = {},
): RenderedTrajectory {
  const toolLimit = options.maxToolResultChars ?? 600;
  const messageLimit = options.maxMessageChars ?? 2000;
  const reward = trajectory.reward === null ? "none" : String(Math.round(trajectory.reward * 1000) / 1000);
  const lines = [`### ${trajectory.key} — ${trajectory.failed ? "FAILED" : "PASSED"} (reward ${reward}, ended by ${trajectory.termination ?? "unknown"})`];
  if (trajectory.instructions !== undefined) lines.push(`[task] ${shorten(oneLine(trajectory.instructions), messageLimit)}`);
  for (const reason of failureReasons(trajectory.rewardInfo)) lines.push(`[grader] ${reason}`);
  for (const message of trajectory.messages) {
    if (message.role === "system") continue;
    if (message.role === "user") lines.push(`[user] ${shorten(oneLine(message.content), messageLimit)}`);
    else if (message.role === "tool") lines.push(`  [result${message.error === true ? ", error" : ""}] ${shorten(oneLine(message.content), toolLimit)}`);
    else {
      if (message.content !== null && message.content.trim() !== "") lines.push(`[agent] ${shorten(oneLine(message.content), messageLimit)}`);
      for (const call of message.tool_calls ?? []) lines.push(`[agent calls] ${call.function.name}(${shorten(call.function.arguments, toolLimit)})`);
    }
  }
  return { key: trajectory.key, failed: trajectory.failed, reward: trajectory.reward, text: lines.join("\n") };
}
