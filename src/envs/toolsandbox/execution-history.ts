/**
 * The databases of a played conversation as ToolSandbox's `ExecutionContext` keeps them: every table holds all its
 * snapshots, each row tagged with the `sandbox_message_index` of the message that caused it, plus all-null "headguard"
 * rows; a snapshot at index i is the most recent one no later than i. Read-only: the environment builds the rows.
 */
import { DATABASE_NAMESPACES, type Column, type DatabaseNamespace, type Row, type SandboxMessage, type ScenarioData, type ToolSandboxExport } from "./export-schema.js";
import type { Frame } from "./frame.js";
import { PythonException } from "./python-values.js";

/** Each namespace's columns, `sandbox_message_index` first. */
export type DatabaseSchemas = Record<DatabaseNamespace, readonly Column[]>;

/** The export's `database_schemas` as column lists. */
export function databaseSchemas(data: Pick<ToolSandboxExport, "database_schemas">): DatabaseSchemas {
  const out = {} as Record<DatabaseNamespace, Column[]>;
  for (const namespace of DATABASE_NAMESPACES) {
    const schema = data.database_schemas[namespace];
    if (schema === undefined) throw new PythonException("KeyError", `database schema ${namespace} missing from the export`);
    out[namespace] = Object.entries(schema).map(([name, dtype]) => ({ name, dtype }));
  }
  return out;
}

const INDEX = "sandbox_message_index";

/** Whether a row is a headguard: every column but `sandbox_message_index` null. */
export function isHeadguard(row: Row, columns: readonly Column[]): boolean {
  return columns.every((column) => column.name === INDEX || (row[column.name] ?? null) === null);
}

/** A headguard row at `index`. */
export function headguardRow(columns: readonly Column[], index: number): Row {
  const row: Row = {};
  for (const column of columns) row[column.name] = column.name === INDEX ? index : null;
  return row;
}

/** The full history of the five tables (read-only once built; lookups are cached). */
export class ExecutionHistory {
  private readonly real = new Map<DatabaseNamespace, Row[]>();
  private readonly indices = new Map<DatabaseNamespace, number[]>();
  private readonly snapshots = new Map<string, Frame>();
  private maxIndex: number | undefined;
  private firstUserIndex: number | undefined;

  constructor(
    readonly schemas: DatabaseSchemas,
    readonly tables: Record<DatabaseNamespace, readonly Row[]>,
  ) {}

  /** Columns of a snapshot (without `sandbox_message_index`). */
  snapshotColumns(namespace: DatabaseNamespace): readonly Column[] {
    return this.schemas[namespace].filter((column) => column.name !== INDEX);
  }

  private realRows(namespace: DatabaseNamespace): Row[] {
    let rows = this.real.get(namespace);
    if (rows === undefined) {
      rows = this.tables[namespace].filter((row) => !isHeadguard(row, this.schemas[namespace]));
      this.real.set(namespace, rows);
    }
    return rows;
  }

  /** Largest index of a (non-headguard) message, -1 when there is none. */
  get maxSandboxMessageIndex(): number {
    if (this.maxIndex === undefined) {
      let max = -1;
      for (const row of this.realRows("SANDBOX")) max = Math.max(max, row[INDEX] as number);
      this.maxIndex = max;
    }
    return this.maxIndex;
  }

  /** Index of the first user message that is not a user-simulator few-shot message, -1 if none. */
  get firstUserSandboxMessageIndex(): number {
    if (this.firstUserIndex === undefined) {
      this.firstUserIndex = -1;
      for (const row of this.realRows("SANDBOX")) {
        const visible = row.visible_to as readonly string[] | null;
        const fewShot = visible !== null && visible.length === 1 && visible[0] === "USER";
        if (row.sender === "USER" && !fewShot) {
          this.firstUserIndex = row[INDEX] as number;
          break;
        }
      }
    }
    return this.firstUserIndex;
  }

  /** `get_most_recent_snapshot_sandbox_message_index`. */
  snapshotIndex(namespace: DatabaseNamespace, query: number): number {
    if (this.realRows(namespace).length === 0) return -1;
    let indices = this.indices.get(namespace);
    if (indices === undefined) {
      indices = [...new Set(this.tables[namespace].map((row) => row[INDEX] as number))].sort((a, b) => a - b);
      this.indices.set(namespace, indices);
    }
    const maxIndex = this.maxSandboxMessageIndex + 1;
    if (query > maxIndex) throw new PythonException("IndexError", `query_index=${query} is larger than the largest available sandbox_message_index + 1 = ${maxIndex} in Sandbox DB.`);
    let position = 0;
    while (position < indices.length && (indices[position] as number) <= query) position++;
    return indices[Math.max(position - 1, 0)] as number;
  }

  /** `get_database(namespace, sandbox_message_index=query)`: the snapshot's rows, headguard and index dropped. */
  snapshot(namespace: DatabaseNamespace, query: number): Frame {
    const target = this.snapshotIndex(namespace, query);
    const key = `${namespace}:${target}`;
    const cached = this.snapshots.get(key);
    if (cached !== undefined) return cached;
    const rows = this.realRows(namespace)
      .filter((row) => row[INDEX] === target)
      .map((row) => {
        const copy: Row = { ...row };
        delete copy[INDEX];
        return copy;
      });
    const frame = { columns: this.snapshotColumns(namespace), rows };
    this.snapshots.set(key, frame);
    return frame;
  }

  /** Every message row (headguards dropped), in table order, with its index. */
  sandboxRows(): Row[] {
    return this.realRows("SANDBOX");
  }
}

/** A message row in the SANDBOX table's column order. */
export function sandboxRow(message: SandboxMessage): Row {
  return {
    sandbox_message_index: message.sandbox_message_index,
    sender: message.sender,
    recipient: message.recipient,
    content: message.content,
    openai_tool_call_id: message.openai_tool_call_id,
    openai_function_name: message.openai_function_name,
    conversation_active: message.conversation_active,
    tool_call_exception: message.tool_call_exception,
    tool_trace: message.tool_trace,
    visible_to: message.visible_to,
  };
}

/**
 * The tables a scenario starts with: a headguard at 0 in each table, the starting world snapshots at the indices the
 * export gives, and the starting messages.
 */
export function startingTables(schemas: DatabaseSchemas, scenario: ScenarioData): Record<DatabaseNamespace, Row[]> {
  const tables = {} as Record<DatabaseNamespace, Row[]>;
  for (const namespace of DATABASE_NAMESPACES) tables[namespace] = [headguardRow(schemas[namespace], 0)];
  for (const message of scenario.messages) tables.SANDBOX.push(sandboxRow(message));
  for (const namespace of ["SETTING", "CONTACT", "MESSAGING", "REMINDER"] as const) {
    const database = scenario.starting_context.databases[namespace];
    for (const row of database.rows) tables[namespace].push({ [INDEX]: database.snapshot_sandbox_message_index, ...row });
  }
  return tables;
}
