/**
 * Moving episodes between the store and τ²-bench results files (both ways). An imported
 * episode keeps its τ² task in its metadata (`tau2Task`), so the run exports back to a results file on its own.
 */
import type { RewardInfo } from "../../spec/reward.js";
import { readTau2Results, writeTau2Results, type Tau2Simulation } from "./results-file.js";
import { taskSchema, type Tau2Task } from "./task-schema.js";
import type { EpisodeRecord, TrajectoryStore } from "../../store/trajectory-store.js";

/** Success threshold of τ²-bench: reward 1 (up to rounding). */
const SUCCESS_THRESHOLD = 1 - 1e-6;

/** The spec reward of a τ²-bench `reward_info`: its reward, success at reward 1, its breakdown, the rest as details. */
function rewardInfoFromTau2(recorded: Record<string, unknown>): RewardInfo | undefined {
  const reward = recorded.reward;
  if (typeof reward !== "number") return undefined;
  const { reward: _reward, reward_breakdown: recordedBreakdown, ...details } = recorded;
  const breakdown: Record<string, number> = {};
  if (recordedBreakdown !== null && typeof recordedBreakdown === "object") {
    for (const [name, value] of Object.entries(recordedBreakdown as Record<string, unknown>)) {
      if (typeof value === "number") breakdown[name] = value;
    }
  }
  return { reward, success: reward >= SUCCESS_THRESHOLD, breakdown, details };
}

/** A τ²-bench `reward_info` for an episode graded here (no τ² record of its own). */
function tau2RewardInfoFrom(reward: RewardInfo): Record<string, unknown> {
  const details = reward.details ?? {};
  return {
    reward: reward.reward,
    db_check: details.db_check ?? null,
    env_assertions: null,
    action_checks: null,
    nl_assertions: null,
    communicate_checks: details.communicate_checks ?? null,
    reward_basis: Object.keys(reward.breakdown).length > 0 ? Object.keys(reward.breakdown) : null,
    reward_breakdown: reward.breakdown,
    info: details,
  };
}

function simulationOf(record: EpisodeRecord): Tau2Simulation {
  const { id, ...extra } = record.extra ?? {};
  if (record.extra === null && record.startedAt !== null && record.finishedAt !== null) {
    extra.start_time = record.startedAt;
    extra.end_time = record.finishedAt;
    extra.timestamp = record.finishedAt;
    extra.duration = (Date.parse(record.finishedAt) - Date.parse(record.startedAt)) / 1000;
  }
  return {
    id: typeof id === "string" ? id : `${record.environment}/${record.taskId}/${record.trial}`,
    taskId: record.taskId,
    trial: record.trial,
    seed: record.seed,
    termination: record.termination ?? "agent_error",
    messages: record.messages ?? [],
    recordedRewardInfo: record.sourceRewardInfo ?? (record.rewardInfo === null ? null : tau2RewardInfoFrom(record.rewardInfo)),
    extra,
  };
}

/**
 * Writes the finished episodes of one environment as a τ²-bench results file (in the order they were stored).
 * Imported episodes keep their τ² id, timestamps and reward_info. Returns the number of simulations written.
 */
export function exportTau2Results(
  store: TrajectoryStore,
  options: { environment: string; file: string; info: Record<string, unknown>; tasks: readonly Tau2Task[] },
): number {
  const simulations = store.listEpisodes({ environment: options.environment, status: "finished" }).map(simulationOf);
  writeTau2Results(options.file, { info: options.info, tasks: options.tasks, simulations });
  return simulations.length;
}

/** The metadata key under which an imported episode keeps its τ² task. */
const TAU2_TASK_METADATA_KEY = "tau2Task";

/**
 * The τ² tasks kept with the finished episodes of `environment` (imported ones), by task id; metadata that is not a
 * valid task is ignored.
 */
export function storedTau2Tasks(store: TrajectoryStore, environment: string): Map<string, Tau2Task> {
  const tasks = new Map<string, Tau2Task>();
  for (const record of store.iterateEpisodes({ environment, status: "finished" })) {
    if (tasks.has(record.taskId)) continue;
    const parsed = taskSchema.safeParse(record.metadata?.[TAU2_TASK_METADATA_KEY]);
    if (parsed.success && parsed.data.id === record.taskId) tasks.set(record.taskId, parsed.data);
  }
  return tasks;
}

/**
 * Imports every simulation of a τ²-bench results file as a finished episode of `environment`, in one transaction
 * (all or nothing); an episode already stored under the same (task, trial) is replaced. The reward comes from
 * the recorded reward_info (none when it is missing); the file's task for the simulation is kept in the metadata
 * (`storedTau2Tasks`). Returns the number imported.
 */
export function importTau2Results(store: TrajectoryStore, resultsFile: string, environment: string): number {
  const { simulations, tasks } = readTau2Results(resultsFile);
  const taskById = new Map(tasks.map((task) => [task.id, task]));
  store.transaction(() => {
    for (const simulation of simulations) {
      const key = { environment, taskId: simulation.taskId, trial: simulation.trial };
      const reward = simulation.recordedRewardInfo === null ? undefined : rewardInfoFromTau2(simulation.recordedRewardInfo);
      const { start_time: startTime, end_time: endTime } = simulation.extra;
      const task = taskById.get(simulation.taskId);
      store.finishEpisode(
        key,
        { ...key, messages: simulation.messages, termination: simulation.termination, ...(simulation.seed === null ? {} : { seed: simulation.seed }), ...(reward === undefined ? {} : { reward }) },
        {
          sourceRewardInfo: simulation.recordedRewardInfo,
          extra: { ...simulation.extra, id: simulation.id },
          ...(task === undefined ? {} : { metadata: { [TAU2_TASK_METADATA_KEY]: task } }),
          ...(typeof startTime === "string" ? { startedAt: startTime } : {}),
          ...(typeof endTime === "string" ? { finishedAt: endTime } : {}),
        },
      );
    }
  });
  return simulations.length;
}
