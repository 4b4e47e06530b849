/**
 * Schema of the trajectory store and its migrations. Each migration has a version number; opening a store applies,
 * in one transaction each, every migration above the version recorded in `schema_version`.
 */
import type Database from "better-sqlite3";
import { StoreVersionError } from "./errors.js";

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "episodes, labels, metrics",
    sql: `
      CREATE TABLE episodes (
        environment TEXT NOT NULL,
        task_id TEXT NOT NULL,
        trial INTEGER NOT NULL CHECK (trial >= 0),
        status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'finished', 'failed')),
        seed INTEGER,
        attempts INTEGER NOT NULL DEFAULT 0,
        started_at TEXT,
        finished_at TEXT,
        updated_at TEXT NOT NULL,
        termination TEXT,
        reward REAL,
        success INTEGER CHECK (success IN (0, 1)),
        reward_info TEXT,          -- JSON: spec RewardInfo
        source_reward_info TEXT,   -- JSON: the environment's own reward record (τ²-bench reward_info), exported verbatim
        messages TEXT,             -- JSON: Message[] without tokens
        tokens BLOB,               -- token-codec.ts: per assistant turn prompt/completion ids (Int32), logprobs (Float32)
        error TEXT,
        metadata TEXT,             -- JSON: model / sampling / config
        extra TEXT,                -- JSON: fields of an imported record kept for export (τ² id, timestamps, costs)
        PRIMARY KEY (environment, task_id, trial)
      );
      CREATE INDEX episodes_by_status ON episodes (environment, status);
      CREATE TABLE labels (
        environment TEXT NOT NULL,
        task_id TEXT NOT NULL,
        trial INTEGER NOT NULL,
        capability TEXT NOT NULL,
        run TEXT NOT NULL,
        label TEXT NOT NULL CHECK (label IN ('NA', 'PRESENT', 'LACKING')),
        updated_at TEXT NOT NULL,
        PRIMARY KEY (environment, task_id, trial, capability, run)
      );
      CREATE INDEX labels_by_capability ON labels (capability, run);
      CREATE TABLE metrics (
        scope TEXT NOT NULL,
        step INTEGER NOT NULL,
        name TEXT NOT NULL,
        value REAL NOT NULL,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (scope, step, name)
      );
    `,
  },
  {
    version: 2,
    description: "training episodes: GRPO's sampled groups, tagged with adapter, iteration and group",
    sql: `
      CREATE TABLE training_episodes (
        adapter TEXT NOT NULL,
        iteration INTEGER NOT NULL CHECK (iteration >= 1),
        group_index INTEGER NOT NULL CHECK (group_index >= 0),
        member INTEGER NOT NULL CHECK (member >= 0),
        capability TEXT NOT NULL,
        environment TEXT NOT NULL,
        task_id TEXT NOT NULL,
        seed INTEGER,
        kept INTEGER NOT NULL CHECK (kept IN (0, 1)),  -- the group had reward variance and was trained on
        advantage REAL,                                 -- the member's group advantage (null in a dropped group)
        termination TEXT,
        reward REAL,
        success INTEGER CHECK (success IN (0, 1)),
        reward_info TEXT,
        messages TEXT,
        tokens BLOB,
        error TEXT,
        metadata TEXT,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (adapter, iteration, group_index, member)
      );
    `,
  },
];

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/** The version recorded in the store (0 for a new file). */
function storedVersion(db: Database.Database): number {
  const row = db.prepare("SELECT MAX(version) AS version FROM schema_version").get() as { version: number | null };
  return row.version ?? 0;
}

/** Creates `schema_version` if needed, refuses a newer store, and applies missing migrations. */
export function migrate(db: Database.Database, file: string, migrations: readonly Migration[] = MIGRATIONS): number {
  db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)");
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  const found = storedVersion(db);
  if (found > known) throw new StoreVersionError(file, found, known);
  const record = db.prepare("INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)");
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= found) continue;
    db.transaction(() => {
      // Another process may have migrated since the check above; the immediate transaction holds the write lock.
      if (storedVersion(db) >= migration.version) return;
      db.exec(migration.sql);
      record.run(migration.version, migration.description, new Date().toISOString());
    }).immediate();
  }
  return known;
}
