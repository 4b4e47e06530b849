/**
 * A playing conversation's state as ToolSandbox's `ExecutionContext` keeps it: every table with all its snapshots
 * (a write first copies the latest snapshot to the index of the message being answered, `max + 1`), headguard rows,
 * and the message table. Identifiers come from a seeded sequence so that replaying the same tool calls gives the
 * same ids (ToolSandbox draws uuid4s, which no milestone compares).
 */
import { createHash } from "node:crypto";
import type { DatabaseNamespace, Row } from "./export-schema.js";
import { ExecutionHistory, headguardRow, isHeadguard, type DatabaseSchemas } from "./execution-history.js";
import { PythonException } from "./python-values.js";

const INDEX = "sandbox_message_index";

/** The declared "now" and local time zone that time-dependent tools read. */
export interface SandboxClock {
  /** POSIX seconds. */
  now: number;
  /** Fixed offset of local time from UTC, in hours. */
  utcOffsetHours: number;
}

export class SandboxWorld {
  private idCounter = 0;

  constructor(
    readonly schemas: DatabaseSchemas,
    private tables: Record<DatabaseNamespace, Row[]>,
    readonly clock: SandboxClock,
    private readonly idSeed: string,
  ) {}

  /** A deep copy (for trying permutations of parallel calls). */
  clone(): SandboxWorld {
    const tables = {} as Record<DatabaseNamespace, Row[]>;
    for (const [namespace, rows] of Object.entries(this.tables) as [DatabaseNamespace, Row[]][]) tables[namespace] = rows.map((row) => ({ ...row }));
    const copy = new SandboxWorld(this.schemas, tables, this.clock, this.idSeed);
    copy.idCounter = this.idCounter;
    return copy;
  }

  /** Replaces this world's state by another's (the permutation whose result stands). */
  adopt(other: SandboxWorld): void {
    this.tables = other.tables;
    this.idCounter = other.idCounter;
  }

  /** A fresh identifier in uuid form, deterministic in the seed and the number drawn so far. */
  newId(): string {
    this.idCounter += 1;
    const hex = createHash("sha1").update(`${this.idSeed}:${this.idCounter}`).digest("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  }

  private real(namespace: DatabaseNamespace): Row[] {
    return this.tables[namespace].filter((row) => !isHeadguard(row, this.schemas[namespace]));
  }

  get maxSandboxMessageIndex(): number {
    let max = -1;
    for (const row of this.real("SANDBOX")) max = Math.max(max, row[INDEX] as number);
    return max;
  }

  private mostRecentIndex(namespace: DatabaseNamespace, query: number): number {
    if (this.real(namespace).length === 0) return -1;
    const indices = [...new Set(this.tables[namespace].map((row) => row[INDEX] as number))].sort((a, b) => a - b);
    let position = 0;
    while (position < indices.length && (indices[position] as number) <= query) position++;
    return indices[Math.max(position - 1, 0)] as number;
  }

  /** `get_database(namespace)`: the latest snapshot's rows, without index or headguard. */
  database(namespace: DatabaseNamespace): Row[] {
    const target = this.mostRecentIndex(namespace, this.maxSandboxMessageIndex + 1);
    return this.tables[namespace]
      .filter((row) => row[INDEX] === target && !isHeadguard(row, this.schemas[namespace]))
      .map((row) => {
        const copy: Row = { ...row };
        delete copy[INDEX];
        return copy;
      });
  }

  private maybeCreateSnapshot(namespace: DatabaseNamespace): void {
    const next = this.maxSandboxMessageIndex + 1;
    if (this.tables[namespace].some((row) => row[INDEX] === next)) return;
    const recent = this.mostRecentIndex(namespace, next - 1);
    const copies = this.tables[namespace].filter((row) => row[INDEX] === recent).map((row) => ({ ...row, [INDEX]: next }));
    this.tables[namespace].push(...copies);
  }

  /** `add_to_database` for a world table: rows join the snapshot of the message being answered. */
  add(namespace: Exclude<DatabaseNamespace, "SANDBOX">, rows: readonly Row[]): void {
    this.maybeCreateSnapshot(namespace);
    const next = this.maxSandboxMessageIndex + 1;
    for (const row of rows) {
      const full: Row = { [INDEX]: next };
      for (const column of this.schemas[namespace]) if (column.name !== INDEX) full[column.name] = row[column.name] ?? null;
      this.tables[namespace].push(full);
    }
  }

  /** `remove_from_database`: `NoDataError` when no row of the current snapshot matches. */
  remove(namespace: Exclude<DatabaseNamespace, "SANDBOX">, predicate: (row: Row) => boolean, predicateText: string): void {
    const next = this.maxSandboxMessageIndex + 1;
    this.maybeCreateSnapshot(namespace);
    const matches = (row: Row) => row[INDEX] === next && !isHeadguard(row, this.schemas[namespace]) && predicate(row);
    if (!this.tables[namespace].some(matches)) throw new PythonException("polars.exceptions.NoDataError", `No db entry matching predicate=${predicateText} found`);
    this.tables[namespace] = this.tables[namespace].filter((row) => !matches(row));
  }

  /** `update_database`: the snapshot of the message being answered becomes a headguard plus `rows`. */
  update(namespace: Exclude<DatabaseNamespace, "SANDBOX">, rows: readonly Row[]): void {
    this.maybeCreateSnapshot(namespace);
    const next = this.maxSandboxMessageIndex + 1;
    const replacement = [headguardRow(this.schemas[namespace], next), ...rows.filter((row) => !isHeadguard({ ...row, [INDEX]: next }, this.schemas[namespace])).map((row) => ({ [INDEX]: next, ...row }))];
    this.tables[namespace] = [...this.tables[namespace].filter((row) => row[INDEX] !== next), ...replacement];
  }

  /** Appends messages to the SANDBOX table (indices follow on; `conversation_active` carries over when null). */
  addMessages(rows: readonly Row[]): void {
    let active = (this.real("SANDBOX").at(-1)?.conversation_active as boolean | null | undefined) ?? true;
    let index = this.maxSandboxMessageIndex + 1;
    for (const row of rows) {
      const full: Row = { [INDEX]: index };
      for (const column of this.schemas.SANDBOX) if (column.name !== INDEX) full[column.name] = row[column.name] ?? null;
      if (full.conversation_active === null) full.conversation_active = active;
      active = full.conversation_active as boolean;
      this.tables.SANDBOX.push(full);
      index += 1;
    }
  }

  /** The last message row. */
  lastMessage(): Row | undefined {
    return this.real("SANDBOX").at(-1);
  }

  /** A read-only view for evaluation. */
  history(): ExecutionHistory {
    const tables = {} as Record<DatabaseNamespace, Row[]>;
    for (const [namespace, rows] of Object.entries(this.tables) as [DatabaseNamespace, Row[]][]) tables[namespace] = rows.map((row) => ({ ...row }));
    return new ExecutionHistory(this.schemas, tables);
  }
}
