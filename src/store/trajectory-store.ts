/**
 * The trajectory store: one SQLite file (WAL mode) holding every episode of a run, keyed by
 * (environment, task id, trial), with status for resumable runners, messages, sampled tokens, rewards, errors and
 * metadata, plus capability labels and training metrics. Every write is a single statement or a transaction, so a
 * crash leaves the store as of the last committed write.
 */
import Database from "better-sqlite3";
import { mkdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Message } from "../spec/message.js";
import type { RewardInfo } from "../spec/reward.js";
import { TERMINATION_REASONS, type TerminationReason, type Trajectory } from "../spec/trajectory.js";
import { TrajectoryStoreError } from "./errors.js";
import { jsonColumnParser } from "./json-column.js";
import { migrate } from "./schema.js";
import { TrainingEpisodes } from "./training-episodes.js";
import { decodeTurnTokens, encodeTurnTokens, mergeTokens, splitTokens } from "./token-codec.js";

export { StoreVersionError, TrajectoryStoreError } from "./errors.js";

export type EpisodeStatus = "pending" | "running" | "finished" | "failed";
export const EPISODE_STATUSES: readonly EpisodeStatus[] = ["pending", "running", "finished", "failed"];

export type CapabilityLabel = "NA" | "PRESENT" | "LACKING";
export const CAPABILITY_LABELS: readonly CapabilityLabel[] = ["NA", "PRESENT", "LACKING"];

export interface EpisodeKey {
  environment: string;
  taskId: string;
  trial: number;
}

export interface EpisodeRecord extends EpisodeKey {
  status: EpisodeStatus;
  seed: number | null;
  /** How many times the episode was claimed (started). */
  attempts: number;
  startedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
  termination: TerminationReason | null;
  reward: number | null;
  success: boolean | null;
  rewardInfo: RewardInfo | null;
  /** The environment's own reward record (τ²-bench `reward_info`), kept verbatim for export. */
  sourceRewardInfo: Record<string, unknown> | null;
  /** Messages with their sampled tokens; null until finished. */
  messages: Message[] | null;
  error: string | null;
  metadata: Record<string, unknown> | null;
  /** Fields of an imported record kept for export (τ² simulation id, timestamps, costs). */
  extra: Record<string, unknown> | null;
}

export interface ClaimOptions {
  seed?: number;
  /** Model / sampling / config metadata; kept from an earlier claim when omitted. */
  metadata?: Record<string, unknown>;
}

export interface FinishExtras {
  metadata?: Record<string, unknown>;
  sourceRewardInfo?: Record<string, unknown> | null;
  extra?: Record<string, unknown> | null;
  /** Defaults to the time of the claim (or null when never claimed). */
  startedAt?: string;
  /** Defaults to now. */
  finishedAt?: string;
}

export interface EpisodeFilter {
  environment?: string;
  status?: EpisodeStatus;
}

/** What `pageEpisodes` selects: the filters of `EpisodeFilter`, a termination, solved or not, a task id substring, a page. */
export interface EpisodePageQuery extends EpisodeFilter {
  termination?: string;
  success?: boolean;
  /** Task ids containing this text. */
  task?: string;
  offset?: number;
  /** Page size [all]. */
  limit?: number;
}

/** An episode without its messages, tokens and reward record: what a table of episodes lists. */
export interface EpisodeSummary extends EpisodeKey {
  status: EpisodeStatus;
  seed: number | null;
  termination: TerminationReason | null;
  reward: number | null;
  success: boolean | null;
  /** The policy server's token counts (`metadata.policyUsage`), when the runner recorded them. */
  promptTokens: number | null;
  completionTokens: number | null;
  /** The first line of a failed episode's error. */
  error: string | null;
  finishedAt: string | null;
}

/** One page of episode summaries, how many match in all, and the environments and terminations the store holds. */
export interface EpisodePage {
  total: number;
  episodes: EpisodeSummary[];
  environments: string[];
  terminations: string[];
}

export interface StoreSummary {
  total: number;
  pending: number;
  running: number;
  failed: number;
  finished: number;
  /** Finished episodes with a reward. */
  graded: number;
  /** Finished episodes marked successful. */
  passed: number;
  /** passed / finished (ungraded finished episodes count as not passed); null when none finished. */
  passRate: number | null;
  /** Mean reward over graded episodes; null when none. */
  meanReward: number | null;
}

export interface LabelRecord extends EpisodeKey {
  capability: string;
  run: string;
  label: CapabilityLabel;
  updatedAt: string;
}

export interface MetricRecord {
  scope: string;
  step: number;
  name: string;
  value: number;
  recordedAt: string;
}

interface EpisodeRow {
  environment: string;
  task_id: string;
  trial: number;
  status: string;
  seed: number | null;
  attempts: number;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  termination: string | null;
  reward: number | null;
  success: number | null;
  reward_info: string | null;
  source_reward_info: string | null;
  messages: string | null;
  tokens: Buffer | null;
  error: string | null;
  metadata: string | null;
  extra: string | null;
}

interface LabelRow {
  environment: string;
  task_id: string;
  trial: number;
  capability: string;
  run: string;
  label: string;
  updated_at: string;
}

interface MetricRow {
  scope: string;
  step: number;
  name: string;
  value: number;
  recorded_at: string;
}

interface EpisodeSummaryRow {
  environment: string;
  task_id: string;
  trial: number;
  status: string;
  seed: number | null;
  termination: string | null;
  reward: number | null;
  success: number | null;
  prompt_tokens: unknown;
  completion_tokens: unknown;
  error: string | null;
  finished_at: string | null;
}

const PAGE_WHERE = `(@environment IS NULL OR environment = @environment) AND (@status IS NULL OR status = @status)
  AND (@termination IS NULL OR termination = @termination) AND (@success IS NULL OR success = @success)
  AND (@task IS NULL OR instr(task_id, @task) > 0)`;

const STORE_FILE_NAME = "store.sqlite";

function now(): string {
  return new Date().toISOString();
}

function json(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}

function describeKey(key: EpisodeKey): string {
  return `${key.environment}/${key.taskId}/${key.trial}`;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return typeof error === "string" ? error : JSON.stringify(error) ?? String(error);
}

/**
 * Opens (creating if needed) a trajectory store. `file` is the SQLite file, or a directory that gets
 * `store.sqlite`. Throws `StoreVersionError` for a store written by a newer schema.
 */
export function openTrajectoryStore(file: string): TrajectoryStore {
  let resolved = path.resolve(file);
  if (statSync(resolved, { throwIfNoEntry: false })?.isDirectory() === true) resolved = path.join(resolved, STORE_FILE_NAME);
  mkdirSync(path.dirname(resolved), { recursive: true });
  let db: Database.Database;
  try {
    db = new Database(resolved);
  } catch (error) {
    throw new TrajectoryStoreError(resolved, [`cannot open: ${error instanceof Error ? error.message : String(error)}`], { cause: error });
  }
  try {
    db.pragma("busy_timeout = 10000");
    const mode = db.pragma("journal_mode = WAL", { simple: true }) as string;
    if (mode.toLowerCase() !== "wal") throw new TrajectoryStoreError(resolved, [`journal mode is ${mode}, not WAL`]);
    // FULL: a committed episode survives power loss too; commits are few (one per episode), so the cost is small.
    db.pragma("synchronous = FULL");
    migrate(db, resolved);
  } catch (error) {
    db.close();
    if (TrajectoryStoreError.isInstance(error)) throw error;
    throw new TrajectoryStoreError(resolved, [`cannot open: ${error instanceof Error ? error.message : String(error)}`], { cause: error });
  }
  return new TrajectoryStore(db, resolved);
}

export class TrajectoryStore {
  private readonly statements;
  /** GRPO's training rollouts (`training_episodes`), apart from the episodes. */
  readonly training: TrainingEpisodes;

  constructor(
    private readonly db: Database.Database,
    /** Absolute path of the SQLite file. */
    readonly file: string,
  ) {
    this.training = new TrainingEpisodes(db, file);
    this.statements = {
      pageEpisodes: db.prepare(
        `SELECT environment, task_id, trial, status, seed, termination, reward, success,
           json_extract(metadata, '$.policyUsage.promptTokens') AS prompt_tokens,
           json_extract(metadata, '$.policyUsage.completionTokens') AS completion_tokens,
           substr(error, 1, instr(error || char(10), char(10)) - 1) AS error, finished_at
         FROM episodes WHERE ${PAGE_WHERE} ORDER BY rowid LIMIT @limit OFFSET @offset`,
      ),
      countEpisodes: db.prepare(`SELECT COUNT(*) AS count FROM episodes WHERE ${PAGE_WHERE}`),
      environments: db.prepare("SELECT DISTINCT environment FROM episodes ORDER BY environment"),
      terminations: db.prepare("SELECT DISTINCT termination FROM episodes WHERE termination IS NOT NULL ORDER BY termination"),
      addPending: db.prepare(
        `INSERT INTO episodes (environment, task_id, trial, status, seed, metadata, updated_at)
         VALUES (@environment, @taskId, @trial, 'pending', @seed, @metadata, @now)
         ON CONFLICT DO NOTHING`,
      ),
      claim: db.prepare(
        `INSERT INTO episodes (environment, task_id, trial, status, seed, metadata, attempts, started_at, updated_at)
         VALUES (@environment, @taskId, @trial, 'running', @seed, @metadata, 1, @now, @now)
         ON CONFLICT (environment, task_id, trial) DO UPDATE SET
           status = 'running', attempts = attempts + 1, started_at = excluded.started_at, finished_at = NULL,
           error = NULL, seed = COALESCE(excluded.seed, seed), metadata = COALESCE(excluded.metadata, metadata),
           updated_at = excluded.updated_at
         WHERE status <> 'finished'`,
      ),
      finish: db.prepare(
        `INSERT INTO episodes (environment, task_id, trial, status, seed, attempts, started_at, finished_at, updated_at,
           termination, reward, success, reward_info, source_reward_info, messages, tokens, metadata, extra)
         VALUES (@environment, @taskId, @trial, 'finished', @seed, 1, @startedAt, @finishedAt, @finishedAt,
           @termination, @reward, @success, @rewardInfo, @sourceRewardInfo, @messages, @tokens, @metadata, @extra)
         ON CONFLICT (environment, task_id, trial) DO UPDATE SET
           status = 'finished', seed = COALESCE(excluded.seed, seed), attempts = MAX(attempts, 1),
           started_at = COALESCE(excluded.started_at, started_at), finished_at = excluded.finished_at,
           updated_at = excluded.updated_at, termination = excluded.termination, reward = excluded.reward,
           success = excluded.success, reward_info = excluded.reward_info,
           source_reward_info = excluded.source_reward_info, messages = excluded.messages, tokens = excluded.tokens,
           error = NULL, metadata = COALESCE(excluded.metadata, metadata), extra = excluded.extra`,
      ),
      fail: db.prepare(
        `INSERT INTO episodes (environment, task_id, trial, status, attempts, finished_at, updated_at, error)
         VALUES (@environment, @taskId, @trial, 'failed', 1, @now, @now, @error)
         ON CONFLICT (environment, task_id, trial) DO UPDATE SET
           status = 'failed', finished_at = excluded.finished_at, updated_at = excluded.updated_at, error = excluded.error
         WHERE status <> 'finished'`,
      ),
      get: db.prepare("SELECT * FROM episodes WHERE environment = ? AND task_id = ? AND trial = ?"),
      list: db.prepare(
        `SELECT * FROM episodes
         WHERE (@environment IS NULL OR environment = @environment) AND (@status IS NULL OR status = @status)
         ORDER BY rowid`,
      ),
      summary: db.prepare(
        `SELECT COUNT(*) AS total,
           COALESCE(SUM(status = 'pending'), 0) AS pending,
           COALESCE(SUM(status = 'running'), 0) AS running,
           COALESCE(SUM(status = 'failed'), 0) AS failed,
           COALESCE(SUM(status = 'finished'), 0) AS finished,
           COALESCE(SUM(status = 'finished' AND reward IS NOT NULL), 0) AS graded,
           COALESCE(SUM(status = 'finished' AND success = 1), 0) AS passed,
           AVG(CASE WHEN status = 'finished' THEN reward END) AS meanReward
         FROM episodes WHERE (@environment IS NULL OR environment = @environment)`,
      ),
      upsertLabel: db.prepare(
        `INSERT INTO labels (environment, task_id, trial, capability, run, label, updated_at)
         VALUES (@environment, @taskId, @trial, @capability, @run, @label, @now)
         ON CONFLICT DO UPDATE SET label = excluded.label, updated_at = excluded.updated_at`,
      ),
      listLabels: db.prepare(
        `SELECT * FROM labels
         WHERE (@environment IS NULL OR environment = @environment) AND (@capability IS NULL OR capability = @capability)
           AND (@run IS NULL OR run = @run)
         ORDER BY environment, capability, run, rowid`,
      ),
      upsertMetric: db.prepare(
        `INSERT INTO metrics (scope, step, name, value, recorded_at) VALUES (@scope, @step, @name, @value, @now)
         ON CONFLICT DO UPDATE SET value = excluded.value, recorded_at = excluded.recorded_at`,
      ),
      listMetrics: db.prepare(
        `SELECT * FROM metrics WHERE (@scope IS NULL OR scope = @scope) AND (@name IS NULL OR name = @name)
         ORDER BY scope, name, step`,
      ),
    };
  }

  /** Runs `fn` in one transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Records planned episodes as pending; existing ones are left alone. Returns how many were added. */
  addPendingEpisodes(keys: readonly EpisodeKey[], options: ClaimOptions = {}): number {
    return this.transaction(() => {
      let added = 0;
      for (const key of keys) {
        this.checkKey(key);
        added += this.statements.addPending.run({ ...this.keyParams(key), seed: options.seed ?? null, metadata: json(options.metadata), now: now() }).changes;
      }
      return added;
    });
  }

  /**
   * Marks an episode running (creating it if new) and returns true, or returns false when it is already finished.
   * A restarted runner claims every episode it plans: finished ones are skipped, pending, running (interrupted)
   * and failed ones are redone. Not a lease: two live runners claiming the same episode both get true.
   */
  claimEpisode(key: EpisodeKey, options: ClaimOptions = {}): boolean {
    this.checkKey(key);
    const result = this.statements.claim.run({ ...this.keyParams(key), seed: options.seed ?? null, metadata: json(options.metadata), now: now() });
    return result.changes > 0;
  }

  /** Stores a finished episode (replacing whatever was stored under its key) in one write. */
  finishEpisode(key: EpisodeKey, trajectory: Trajectory, extras: FinishExtras = {}): void {
    this.checkKey(key);
    if (trajectory.environment !== key.environment || trajectory.taskId !== key.taskId || trajectory.trial !== key.trial) {
      throw new TrajectoryStoreError(this.file, [
        `episode ${describeKey(key)}: trajectory is for ${describeKey({ environment: trajectory.environment, taskId: trajectory.taskId, trial: trajectory.trial })}`,
      ]);
    }
    const { messages, turns } = splitTokens(trajectory.messages);
    const reward = trajectory.reward;
    this.statements.finish.run({
      ...this.keyParams(key),
      seed: trajectory.seed ?? null,
      startedAt: extras.startedAt ?? null,
      finishedAt: extras.finishedAt ?? now(),
      termination: trajectory.termination,
      reward: reward?.reward ?? null,
      success: reward === undefined ? null : reward.success ? 1 : 0,
      rewardInfo: json(reward),
      sourceRewardInfo: json(extras.sourceRewardInfo),
      messages: JSON.stringify(messages),
      tokens: encodeTurnTokens(turns),
      metadata: json(extras.metadata),
      extra: json(extras.extra),
    });
  }

  /** Marks an episode failed with the error's text (its stack when it has one). A finished episode cannot fail. */
  failEpisode(key: EpisodeKey, error: unknown): void {
    this.checkKey(key);
    const result = this.statements.fail.run({ ...this.keyParams(key), error: errorText(error), now: now() });
    if (result.changes === 0) throw new TrajectoryStoreError(this.file, [`episode ${describeKey(key)} is already finished; it cannot be marked failed`]);
  }

  getEpisode(key: EpisodeKey): EpisodeRecord | undefined {
    const row = this.statements.get.get(key.environment, key.taskId, key.trial) as EpisodeRow | undefined;
    return row === undefined ? undefined : this.fromRow(row);
  }

  /** Episodes in the order they were first stored. */
  listEpisodes(filter: EpisodeFilter = {}): EpisodeRecord[] {
    return this.queryEpisodes(filter).map((row) => this.fromRow(row));
  }

  /** Iterates episodes without loading them all (for exports). */
  *iterateEpisodes(filter: EpisodeFilter = {}): Generator<EpisodeRecord> {
    this.checkStatus(filter.status);
    for (const row of this.statements.list.iterate({ environment: filter.environment ?? null, status: filter.status ?? null })) {
      yield this.fromRow(row as EpisodeRow);
    }
  }

  /** A page of episode summaries (no messages are read, so a table of thousands opens quickly) and the facets to filter by. */
  pageEpisodes(query: EpisodePageQuery = {}): EpisodePage {
    this.checkStatus(query.status);
    const params = {
      environment: query.environment ?? null,
      status: query.status ?? null,
      termination: query.termination ?? null,
      success: query.success === undefined ? null : query.success ? 1 : 0,
      task: query.task === undefined || query.task === "" ? null : query.task,
    };
    const rows = this.statements.pageEpisodes.all({ ...params, offset: query.offset ?? 0, limit: query.limit ?? -1 }) as EpisodeSummaryRow[];
    const number = (value: unknown) => (typeof value === "number" ? value : null);
    return {
      total: (this.statements.countEpisodes.get(params) as { count: number }).count,
      episodes: rows.map((row) => ({
        environment: row.environment,
        taskId: row.task_id,
        trial: row.trial,
        status: row.status as EpisodeStatus,
        seed: row.seed,
        termination: row.termination as TerminationReason | null,
        reward: row.reward,
        success: row.success === null ? null : row.success === 1,
        promptTokens: number(row.prompt_tokens),
        completionTokens: number(row.completion_tokens),
        error: row.error,
        finishedAt: row.finished_at,
      })),
      environments: (this.statements.environments.all() as { environment: string }[]).map((row) => row.environment),
      terminations: (this.statements.terminations.all() as { termination: string }[]).map((row) => row.termination),
    };
  }

  summary(filter: { environment?: string } = {}): StoreSummary {
    const row = this.statements.summary.get({ environment: filter.environment ?? null }) as Omit<StoreSummary, "passRate">;
    return { ...row, passRate: row.finished === 0 ? null : row.passed / row.finished };
  }

  upsertLabel(label: EpisodeKey & { capability: string; run: string; label: CapabilityLabel }): void {
    this.checkKey(label);
    if (!CAPABILITY_LABELS.includes(label.label)) throw new TrajectoryStoreError(this.file, [`label ${String(label.label)} is not one of ${CAPABILITY_LABELS.join(", ")}`]);
    this.statements.upsertLabel.run({ ...this.keyParams(label), capability: label.capability, run: label.run, label: label.label, now: now() });
  }

  upsertLabels(labels: readonly (EpisodeKey & { capability: string; run: string; label: CapabilityLabel })[]): void {
    this.transaction(() => {
      for (const label of labels) this.upsertLabel(label);
    });
  }

  listLabels(filter: { environment?: string; capability?: string; run?: string } = {}): LabelRecord[] {
    const rows = this.statements.listLabels.all({ environment: filter.environment ?? null, capability: filter.capability ?? null, run: filter.run ?? null }) as LabelRow[];
    return rows.map((row) => ({
      environment: row.environment,
      taskId: row.task_id,
      trial: row.trial,
      capability: row.capability,
      run: row.run,
      label: row.label as CapabilityLabel,
      updatedAt: row.updated_at,
    }));
  }

  /** Records one metric value (replacing a value of the same scope, step and name). */
  recordMetric(scope: string, step: number, name: string, value: number): void {
    if (!Number.isInteger(step)) throw new TrajectoryStoreError(this.file, [`metric ${scope}/${name}: step ${step} is not an integer`]);
    if (!Number.isFinite(value)) throw new TrajectoryStoreError(this.file, [`metric ${scope}/${name} at step ${step}: value ${value} is not finite`]);
    this.statements.upsertMetric.run({ scope, step, name, value, now: now() });
  }

  /** Records several metrics of one step in one transaction. */
  recordMetrics(scope: string, step: number, values: Record<string, number>): void {
    this.transaction(() => {
      for (const [name, value] of Object.entries(values)) this.recordMetric(scope, step, name, value);
    });
  }

  listMetrics(filter: { scope?: string; name?: string } = {}): MetricRecord[] {
    const rows = this.statements.listMetrics.all({ scope: filter.scope ?? null, name: filter.name ?? null }) as MetricRow[];
    return rows.map((row) => ({ scope: row.scope, step: row.step, name: row.name, value: row.value, recordedAt: row.recorded_at }));
  }

  /** Closes the database (SQLite checkpoints the WAL when the last connection closes). */
  close(): void {
    if (this.db.open) this.db.close();
  }

  get isOpen(): boolean {
    return this.db.open;
  }

  private checkStatus(status: EpisodeStatus | undefined): void {
    if (status !== undefined && !EPISODE_STATUSES.includes(status)) {
      throw new TrajectoryStoreError(this.file, [`status ${String(status)} is not one of ${EPISODE_STATUSES.join(", ")}`]);
    }
  }

  private queryEpisodes(filter: EpisodeFilter): EpisodeRow[] {
    this.checkStatus(filter.status);
    return this.statements.list.all({ environment: filter.environment ?? null, status: filter.status ?? null }) as EpisodeRow[];
  }

  private keyParams(key: EpisodeKey): { environment: string; taskId: string; trial: number } {
    return { environment: key.environment, taskId: key.taskId, trial: key.trial };
  }

  private checkKey(key: EpisodeKey): void {
    const problems: string[] = [];
    if (typeof key.environment !== "string" || key.environment === "") problems.push("environment must be a non-empty string");
    if (typeof key.taskId !== "string") problems.push("taskId must be a string");
    if (!Number.isInteger(key.trial) || key.trial < 0) problems.push(`trial ${key.trial} must be a non-negative integer`);
    if (problems.length > 0) throw new TrajectoryStoreError(this.file, problems.map((problem) => `episode key: ${problem}`));
  }

  private fromRow(row: EpisodeRow): EpisodeRecord {
    const key: EpisodeKey = { environment: row.environment, taskId: row.task_id, trial: row.trial };
    const where = `episode ${describeKey(key)}`;
    const parse = jsonColumnParser(this.file, where);
    if (!EPISODE_STATUSES.includes(row.status as EpisodeStatus)) throw new TrajectoryStoreError(this.file, [`${where}: unknown status ${row.status}`]);
    if (row.termination !== null && !TERMINATION_REASONS.includes(row.termination as TerminationReason)) {
      throw new TrajectoryStoreError(this.file, [`${where}: unknown termination ${row.termination}`]);
    }
    let messages = parse<Message[]>("messages", row.messages);
    if (messages !== null && row.tokens !== null) {
      try {
        messages = mergeTokens(messages, decodeTurnTokens(row.tokens));
      } catch (error) {
        throw new TrajectoryStoreError(this.file, [`${where}: column tokens: ${error instanceof Error ? error.message : String(error)}`], { cause: error });
      }
    }
    return {
      ...key,
      status: row.status as EpisodeStatus,
      seed: row.seed,
      attempts: row.attempts,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
      updatedAt: row.updated_at,
      termination: row.termination as TerminationReason | null,
      reward: row.reward,
      success: row.success === null ? null : row.success === 1,
      rewardInfo: parse<RewardInfo>("reward_info", row.reward_info),
      sourceRewardInfo: parse<Record<string, unknown>>("source_reward_info", row.source_reward_info),
      messages,
      error: row.error,
      metadata: parse<Record<string, unknown>>("metadata", row.metadata),
      extra: parse<Record<string, unknown>>("extra", row.extra),
    };
  }
}

/** The trajectory of a finished episode (undefined for any other status). */
export function trajectoryOf(record: EpisodeRecord): Trajectory | undefined {
  if (record.status !== "finished" || record.messages === null || record.termination === null) return undefined;
  const trajectory: Trajectory = { environment: record.environment, taskId: record.taskId, trial: record.trial, messages: record.messages, termination: record.termination };
  if (record.seed !== null) trajectory.seed = record.seed;
  if (record.rewardInfo !== null) trajectory.reward = record.rewardInfo;
  return trajectory;
}
