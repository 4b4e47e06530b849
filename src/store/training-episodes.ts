/**
 * GRPO's training rollouts in the trajectory store (`training_episodes`): every sampled group's episodes, tagged with
 * the adapter, iteration, group and member, whether the group was trained on (kept) and each member's advantage. They
 * live beside the `episodes` table, never in it, so analysis, `trace show` and evaluation see the target's rollouts only.
 */
import type Database from "better-sqlite3";
import type { Message } from "../spec/message.js";
import type { RewardInfo } from "../spec/reward.js";
import type { TerminationReason, Trajectory } from "../spec/trajectory.js";
import { TrajectoryStoreError } from "./errors.js";
import { jsonColumnParser } from "./json-column.js";
import { decodeTurnTokens, encodeTurnTokens, mergeTokens, splitTokens } from "./token-codec.js";

/** Which sampled episode: the adapter, the 1-based iteration, the group (seed) index and the member (rollout) index. */
export interface TrainingEpisodeKey {
  adapter: string;
  iteration: number;
  group: number;
  member: number;
}

/** One sampled episode as GRPO records it. */
export interface TrainingEpisodeInput extends TrainingEpisodeKey {
  capability: string;
  trajectory: Trajectory;
  /** The group had reward variance and was trained on. */
  kept: boolean;
  /** The member's group advantage; null in a dropped group. */
  advantage: number | null;
  /** An agent or user error that ended the episode. */
  error?: string;
  metadata?: Record<string, unknown>;
}

/** A stored training episode without its messages (what tables list). */
export interface TrainingEpisodeSummary extends TrainingEpisodeKey {
  capability: string;
  environment: string;
  taskId: string;
  seed: number | null;
  kept: boolean;
  advantage: number | null;
  termination: TerminationReason | null;
  reward: number | null;
  success: boolean | null;
  error: string | null;
  /** The policy server's completion tokens (`metadata.policyUsage`), when recorded. */
  completionTokens: number | null;
  recordedAt: string;
}

/** A stored training episode with its messages (sampled tokens merged back) and reward record. */
export interface TrainingEpisodeRecord extends TrainingEpisodeSummary {
  rewardInfo: RewardInfo | null;
  messages: Message[] | null;
  metadata: Record<string, unknown> | null;
}

/** Which training episodes: an adapter's, one iteration's. */
export interface TrainingEpisodeFilter {
  adapter?: string;
  iteration?: number;
}

interface SummaryRow {
  adapter: string;
  iteration: number;
  group_index: number;
  member: number;
  capability: string;
  environment: string;
  task_id: string;
  seed: number | null;
  kept: number;
  advantage: number | null;
  termination: string | null;
  reward: number | null;
  success: number | null;
  error: string | null;
  completion_tokens: number | null;
  recorded_at: string;
}

interface FullRow extends SummaryRow {
  reward_info: string | null;
  messages: string | null;
  tokens: Buffer | null;
  metadata: string | null;
}

const SUMMARY_COLUMNS = `adapter, iteration, group_index, member, capability, environment, task_id, seed, kept, advantage, termination,
  reward, success, error, json_extract(metadata, '$.policyUsage.completionTokens') AS completion_tokens, recorded_at`;
const WHERE = "(@adapter IS NULL OR adapter = @adapter) AND (@iteration IS NULL OR iteration = @iteration)";
const ORDER = "ORDER BY adapter, iteration, group_index, member";

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

/** The `training_episodes` table of one store (reached as `TrajectoryStore.training`). */
export class TrainingEpisodes {
  private readonly statements;

  constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    this.statements = {
      put: db.prepare(
        `INSERT OR REPLACE INTO training_episodes (adapter, iteration, group_index, member, capability, environment, task_id, seed, kept,
           advantage, termination, reward, success, reward_info, messages, tokens, error, metadata, recorded_at)
         VALUES (@adapter, @iteration, @group, @member, @capability, @environment, @taskId, @seed, @kept, @advantage, @termination,
           @reward, @success, @rewardInfo, @messages, @tokens, @error, @metadata, @now)`,
      ),
      deleteAfter: db.prepare("DELETE FROM training_episodes WHERE adapter = ? AND iteration > ?"),
      deleteBefore: db.prepare("DELETE FROM training_episodes WHERE adapter = ? AND iteration < ?"),
      get: db.prepare("SELECT *, json_extract(metadata, '$.policyUsage.completionTokens') AS completion_tokens FROM training_episodes WHERE adapter = ? AND iteration = ? AND group_index = ? AND member = ?"),
      list: db.prepare(`SELECT *, json_extract(metadata, '$.policyUsage.completionTokens') AS completion_tokens FROM training_episodes WHERE ${WHERE} ${ORDER}`),
      summaries: db.prepare(`SELECT ${SUMMARY_COLUMNS} FROM training_episodes WHERE ${WHERE} ${ORDER} LIMIT @limit OFFSET @offset`),
      count: db.prepare(`SELECT COUNT(*) AS count FROM training_episodes WHERE ${WHERE}`),
      iterations: db.prepare(
        `SELECT adapter, iteration, COUNT(*) AS episodes, AVG(reward) AS meanReward, SUM(kept) AS keptEpisodes
         FROM training_episodes WHERE (@adapter IS NULL OR adapter = @adapter) GROUP BY adapter, iteration ORDER BY adapter, iteration`,
      ),
    };
  }

  /** Stores (or replaces) episodes in one transaction. */
  record(episodes: readonly TrainingEpisodeInput[]): void {
    this.db.transaction(() => {
      for (const episode of episodes) {
        this.checkKey(episode);
        const { messages, turns } = splitTokens(episode.trajectory.messages);
        const reward = episode.trajectory.reward;
        this.statements.put.run({
          adapter: episode.adapter,
          iteration: episode.iteration,
          group: episode.group,
          member: episode.member,
          capability: episode.capability,
          environment: episode.trajectory.environment,
          taskId: episode.trajectory.taskId,
          seed: episode.trajectory.seed ?? null,
          kept: episode.kept ? 1 : 0,
          advantage: episode.advantage,
          termination: episode.trajectory.termination,
          reward: reward?.reward ?? null,
          success: reward === undefined ? null : reward.success ? 1 : 0,
          rewardInfo: json(reward),
          messages: JSON.stringify(messages),
          tokens: encodeTurnTokens(turns),
          error: episode.error ?? null,
          metadata: json(episode.metadata),
          now: new Date().toISOString(),
        });
      }
    }).immediate();
  }

  /** Deletes an adapter's iterations after `iteration` (those a resumed run redoes); returns how many episodes went. */
  deleteAfter(adapter: string, iteration: number): number {
    return this.statements.deleteAfter.run(adapter, iteration).changes;
  }

  /** Deletes an adapter's iterations before `iteration` (retention); returns how many episodes went. */
  deleteBefore(adapter: string, iteration: number): number {
    return this.statements.deleteBefore.run(adapter, iteration).changes;
  }

  get(key: TrainingEpisodeKey): TrainingEpisodeRecord | undefined {
    const row = this.statements.get.get(key.adapter, key.iteration, key.group, key.member) as FullRow | undefined;
    return row === undefined ? undefined : this.fromFullRow(row);
  }

  /** Every matching episode with its messages, by adapter, iteration, group and member. */
  list(filter: TrainingEpisodeFilter = {}): TrainingEpisodeRecord[] {
    return (this.statements.list.all(this.filterParams(filter)) as FullRow[]).map((row) => this.fromFullRow(row));
  }

  /** Iterates matching episodes without loading them all (for exports). */
  *iterate(filter: TrainingEpisodeFilter = {}): Generator<TrainingEpisodeRecord> {
    for (const row of this.statements.list.iterate(this.filterParams(filter))) yield this.fromFullRow(row as FullRow);
  }

  /** One page of matching episodes without messages, and how many match in all. */
  page(filter: TrainingEpisodeFilter & { offset?: number; limit?: number } = {}): { total: number; episodes: TrainingEpisodeSummary[] } {
    const params = this.filterParams(filter);
    const rows = this.statements.summaries.all({ ...params, offset: filter.offset ?? 0, limit: filter.limit ?? -1 }) as SummaryRow[];
    const { count } = this.statements.count.get(params) as { count: number };
    return { total: count, episodes: rows.map((row) => this.fromSummaryRow(row)) };
  }

  /** Per adapter and iteration: episodes stored, their mean reward and how many were in kept groups. */
  iterations(adapter?: string): { adapter: string; iteration: number; episodes: number; meanReward: number | null; keptEpisodes: number }[] {
    return this.statements.iterations.all({ adapter: adapter ?? null }) as { adapter: string; iteration: number; episodes: number; meanReward: number | null; keptEpisodes: number }[];
  }

  private filterParams(filter: TrainingEpisodeFilter): { adapter: string | null; iteration: number | null } {
    return { adapter: filter.adapter ?? null, iteration: filter.iteration ?? null };
  }

  private checkKey(key: TrainingEpisodeKey): void {
    const problems: string[] = [];
    if (typeof key.adapter !== "string" || key.adapter === "") problems.push("adapter must be a non-empty string");
    if (!Number.isInteger(key.iteration) || key.iteration < 1) problems.push(`iteration ${key.iteration} must be a positive integer`);
    if (!Number.isInteger(key.group) || key.group < 0) problems.push(`group ${key.group} must be a non-negative integer`);
    if (!Number.isInteger(key.member) || key.member < 0) problems.push(`member ${key.member} must be a non-negative integer`);
    if (problems.length > 0) throw new TrajectoryStoreError(this.file, problems.map((problem) => `training episode key: ${problem}`));
  }

  private fromSummaryRow(row: SummaryRow): TrainingEpisodeSummary {
    return {
      adapter: row.adapter,
      iteration: row.iteration,
      group: row.group_index,
      member: row.member,
      capability: row.capability,
      environment: row.environment,
      taskId: row.task_id,
      seed: row.seed,
      kept: row.kept === 1,
      advantage: row.advantage,
      termination: row.termination as TerminationReason | null,
      reward: row.reward,
      success: row.success === null ? null : row.success === 1,
      error: row.error,
      completionTokens: typeof row.completion_tokens === "number" ? row.completion_tokens : null,
      recordedAt: row.recorded_at,
    };
  }

  private fromFullRow(row: FullRow): TrainingEpisodeRecord {
    const where = `training episode ${row.adapter}/${row.iteration}/${row.group_index}/${row.member}`;
    const parse = jsonColumnParser(this.file, where);
    let messages = parse<Message[]>("messages", row.messages);
    if (messages !== null && row.tokens !== null) messages = mergeTokens(messages, decodeTurnTokens(row.tokens));
    return { ...this.fromSummaryRow(row), rewardInfo: parse<RewardInfo>("reward_info", row.reward_info), messages, metadata: parse<Record<string, unknown>>("metadata", row.metadata) };
  }
}
