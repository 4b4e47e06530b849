/**
 * τ²-bench v0.2 grading (`evaluate_simulation` with evaluation type ALL): only an agent or user stop scores; the DB
 * check replays the gold actions on one fresh state and the conversation's own tool calls on another and compares
 * them; COMMUNICATE checks each required string in the assistant's messages; the reward is the product over the
 * task's reward basis. Action checks are computed and NL assertions listed, unscored, as τ²-bench does.
 */
import type { Message, ToolCall } from "../../spec/message.js";
import type { RewardInfo } from "../../spec/reward.js";
import type { TerminationReason } from "../../spec/trajectory.js";
import type { DatabaseState } from "../core/copy-on-write-database.js";
import { jsonEquals } from "../core/json-value.js";
import type { Tau2DomainData } from "./domain-data.js";
import type { RewardType, Tau2Action, Tau2Task } from "./task-schema.js";

/** A recorded observation that the replay did not reproduce (τ²-bench's `set_state` raises on these). */
export interface ReplayMismatch {
  callIndex: number;
  toolCallId: string;
  toolName: string;
  recorded: string;
  replayed: string;
}

/** τ²-bench's `RewardInfo`, field for field, so results files round-trip. */
export interface Tau2RewardInfo {
  reward: number;
  db_check: { db_match: boolean; db_reward: number } | null;
  env_assertions: unknown[] | null;
  action_checks: { action: Tau2Action; action_match: boolean; action_reward: number }[] | null;
  nl_assertions: unknown[] | null;
  communicate_checks: { info: string; met: boolean; justification: string }[] | null;
  reward_basis: RewardType[] | null;
  reward_breakdown: Partial<Record<RewardType, number>> | null;
  info: Record<string, unknown> | null;
}

export interface Tau2Grade {
  rewardInfo: Tau2RewardInfo;
  /** NL assertions of the task, listed but not scored (they need an LLM judge). */
  unscoredNlAssertions: string[];
  /** Observations in the conversation that replaying its tool calls did not reproduce. */
  replayMismatches: ReplayMismatch[];
  /** Records that differ between the gold state and the conversation's state, as `table/id`. */
  databaseDifferences: string[];
}

function emptyRewardInfo(reward: number, info: Record<string, unknown>): Tau2RewardInfo {
  return {
    reward,
    db_check: null,
    env_assertions: null,
    action_checks: null,
    nl_assertions: null,
    communicate_checks: null,
    reward_basis: null,
    reward_breakdown: null,
    info,
  };
}

/**
 * Tool calls in conversation order, each with the observation recorded right after it. Pairing is positional, as in
 * τ²-bench's `set_state`: real runs reuse tool-call ids, so ids alone cannot pair calls with observations.
 */
export function toolCallsWithObservations(messages: readonly Message[]): { call: ToolCall; observation?: string }[] {
  const out: { call: ToolCall; observation?: string }[] = [];
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as Message;
    if (message.role !== "assistant") continue;
    let next = index + 1;
    for (const call of message.tool_calls ?? []) {
      const candidate = messages[next];
      if (candidate?.role === "tool" && candidate.tool_call_id === call.id) {
        out.push({ call, observation: candidate.content });
        next++;
      } else {
        out.push({ call });
      }
    }
  }
  return out;
}

function parseMaybeJson(text: string): { json: true; value: unknown } | { json: false } {
  try {
    return { json: true, value: JSON.parse(text) as unknown };
  } catch {
    return { json: false };
  }
}

/** τ²'s comparison of a replayed observation with the recorded one: equal as parsed JSON, else as strings. */
export function observationsAgree(recorded: string, replayed: string): boolean {
  if (recorded === replayed) return true;
  const left = parseMaybeJson(recorded);
  const right = parseMaybeJson(replayed);
  if (left.json && right.json) return jsonEquals(left.value, right.value);
  if (!left.json && !right.json) return false;
  // One side parses and the other does not: τ² compares a parsed value with a string, which is unequal.
  return false;
}

function parseArguments(call: ToolCall): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(call.function.arguments === "" ? "{}" : call.function.arguments) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** τ²'s `Action.compare_with_tool_call`: same name, and equal values on `compare_args` (all of the call's if unset). */
export function actionMatchesToolCall(action: Tau2Action, call: ToolCall): boolean {
  if (action.name !== call.function.name) return false;
  const callArguments = parseArguments(call);
  if (callArguments === undefined) return false;
  const keys = action.compare_args ?? Object.keys(callArguments);
  if (keys.length === 0) return true;
  const pick = (source: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(source).filter(([key]) => keys.includes(key)));
  return jsonEquals(pick(callArguments), pick(action.arguments));
}

function hasTextContent(message: Message): message is Message & { content: string } {
  return typeof message.content === "string" && message.content.trim() !== "";
}

/** τ²'s communicate check: each string appears, lower-cased, in an assistant message with commas removed. */
export function communicateChecks(messages: readonly Message[], required: readonly string[]) {
  return required.map((info) => {
    const needle = info.toLowerCase();
    const found = messages.find(
      (message) => message.role === "assistant" && hasTextContent(message) && message.content.toLowerCase().replaceAll(",", "").includes(needle),
    );
    return found !== undefined && typeof found.content === "string"
      ? { info, met: true, justification: `Information '${info}' communicated in the message:\n '${found.content}'` }
      : { info, met: false, justification: `Information '${info}' not communicated.` };
  });
}

/** Replays the gold actions on a fresh state; errors in gold actions are ignored, as in τ²-bench. */
export function goldState<Tables extends Record<string, object>>(data: Tau2DomainData<Tables>, task: Tau2Task): DatabaseState<Tables> {
  const state = data.database.createState();
  for (const action of task.evaluation_criteria?.actions ?? []) {
    if (action.requestor !== "assistant") continue;
    data.toolKit.execute(state, action.name, action.arguments);
  }
  return state;
}

/** Replays a conversation's tool calls on a fresh state and reports observations that differ from the recorded ones. */
export function replayConversation<Tables extends Record<string, object>>(
  data: Tau2DomainData<Tables>,
  messages: readonly Message[],
): { state: DatabaseState<Tables>; mismatches: ReplayMismatch[]; calls: number } {
  const state = data.database.createState();
  const mismatches: ReplayMismatch[] = [];
  const calls = toolCallsWithObservations(messages);
  calls.forEach(({ call, observation }, callIndex) => {
    const result = data.toolKit.execute(state, call.function.name, call.function.arguments);
    if (observation !== undefined && !observationsAgree(observation, result.content)) {
      mismatches.push({ callIndex, toolCallId: call.id, toolName: call.function.name, recorded: observation, replayed: result.content });
    }
  });
  return { state, mismatches, calls: calls.length };
}

/** Grades one conversation exactly as τ²-bench v0.2 does. */
export function gradeTau2<Tables extends Record<string, object>>(
  data: Tau2DomainData<Tables>,
  task: Tau2Task,
  messages: readonly Message[],
  termination: TerminationReason,
): Tau2Grade {
  const criteria = task.evaluation_criteria;
  const unscoredNlAssertions = criteria?.nl_assertions ?? [];
  if (termination !== "agent_stop" && termination !== "user_stop") {
    return {
      rewardInfo: emptyRewardInfo(0, { note: `Simulation terminated prematurely. Termination reason: ${termination}` }),
      unscoredNlAssertions,
      replayMismatches: [],
      databaseDifferences: [],
    };
  }
  if (criteria == null) {
    return { rewardInfo: emptyRewardInfo(1, { note: "No evaluation criteria" }), unscoredNlAssertions, replayMismatches: [], databaseDifferences: [] };
  }
  const basis = criteria.reward_basis;
  if (basis.includes("NL_ASSERTION")) {
    throw new Error(`task ${task.id}: NL assertions are part of the reward basis, but they are not being evaluated.`);
  }
  if (basis.includes("ENV_ASSERTION") || (criteria.env_assertions?.length ?? 0) > 0) {
    throw new Error(`task ${task.id}: env_assertions are not supported for the ${data.domain.name} domain`);
  }

  // Environment (DB) check.
  let envInfo: { reward: number; db_check: Tau2RewardInfo["db_check"]; breakdown: Partial<Record<RewardType, number>>; info: unknown };
  let replayMismatches: ReplayMismatch[] = [];
  let databaseDifferences: string[] = [];
  if (criteria.actions == null && criteria.env_assertions == null) {
    envInfo = { reward: 1, db_check: { db_match: true, db_reward: 1 }, breakdown: {}, info: { note: "No expected actions or env assertions" } };
  } else {
    const replay = replayConversation(data, messages);
    replayMismatches = replay.mismatches;
    const gold = goldState(data, task);
    databaseDifferences = gold.differences(replay.state).map(({ table, id }) => `${table}/${id}`);
    const dbReward = databaseDifferences.length === 0 ? 1 : 0;
    const breakdown: Partial<Record<RewardType, number>> = {};
    let reward = 1;
    if (basis.includes("DB")) {
      breakdown.DB = dbReward;
      reward *= dbReward;
    }
    envInfo = { reward, db_check: { db_match: dbReward === 1, db_reward: dbReward }, breakdown, info: null };
  }

  // Action checks.
  const actions = criteria.actions ?? [];
  let actionChecks: Tau2RewardInfo["action_checks"] = null;
  let actionReward = 1;
  let actionInfo: unknown = null;
  if (actions.length === 0) {
    actionInfo = { note: "No actions to evaluate" };
  } else {
    const calls = toolCallsWithObservations(messages).map(({ call }) => call);
    actionChecks = actions.map((action) => {
      const match = calls.some((call) => actionMatchesToolCall(action, call));
      return { action, action_match: match, action_reward: match ? 1 : 0 };
    });
    actionReward = actionChecks.every((check) => check.action_match) ? 1 : 0;
  }

  // Communicate checks.
  const required = criteria.communicate_info ?? [];
  let communicate: Tau2RewardInfo["communicate_checks"] = null;
  let communicateReward = 1;
  let communicateInfo: unknown = null;
  if (required.length === 0) {
    communicateInfo = { note: "No communicate_info to evaluate" };
  } else {
    communicate = communicateChecks(messages, required);
    communicateReward = communicate.every((check) => check.met) ? 1 : 0;
  }

  let reward = 1;
  const breakdown: Partial<Record<RewardType, number>> = {};
  if (basis.includes("DB") || basis.includes("ENV_ASSERTION")) {
    Object.assign(breakdown, envInfo.breakdown);
    reward *= envInfo.reward;
  }
  if (basis.includes("ACTION")) {
    breakdown.ACTION = actionReward;
    reward *= actionReward;
  }
  if (basis.includes("COMMUNICATE")) {
    breakdown.COMMUNICATE = communicateReward;
    reward *= communicateReward;
  }
  return {
    rewardInfo: {
      reward,
      db_check: envInfo.db_check,
      env_assertions: criteria.actions == null && criteria.env_assertions == null ? null : [],
      action_checks: actionChecks,
      nl_assertions: null,
      communicate_checks: communicate,
      reward_basis: basis,
      reward_breakdown: breakdown,
      info: { env: envInfo.info, nl: null, communicate: communicateInfo, action: actionInfo },
    },
    unscoredNlAssertions,
    replayMismatches,
    databaseDifferences,
  };
}

/** The protocol-level reward of a τ² grade. */
export function toRewardInfo(grade: Tau2Grade): RewardInfo {
  const info = grade.rewardInfo;
  return {
    reward: info.reward,
    success: info.reward >= 1 - 1e-6,
    breakdown: { ...(info.reward_breakdown ?? {}) },
    details: {
      db_check: info.db_check,
      action_checks: info.action_checks?.map((check) => ({ action_id: check.action.action_id, name: check.action.name, match: check.action_match })) ?? null,
      communicate_checks: info.communicate_checks,
      nl_assertions_unscored: grade.unscoredNlAssertions,
      replay_mismatches: grade.replayMismatches,
      database_differences: grade.databaseDifferences,
      info: info.info,
    },
  };
}
