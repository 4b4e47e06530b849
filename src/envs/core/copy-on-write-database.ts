/**
 * A database of named tables (id → JSON record) that shares one frozen base between episodes and copies a record
 * only when a tool writes to it. Two states grown from the same base are compared by looking only at the records
 * either of them touched, so grading never copies or hashes the whole database.
 */
import { cloneJson, deepFreeze, jsonEquals } from "./json-value.js";

/** The immutable data every episode starts from: table name → (record id → record). */
export class DatabaseBase<Tables extends Record<string, object>> {
  readonly tables: { readonly [Name in keyof Tables]: ReadonlyMap<string, Readonly<Tables[Name]>> };

  constructor(data: { [Name in keyof Tables]: Record<string, Tables[Name]> }) {
    const tables = {} as { [Name in keyof Tables]: Map<string, Readonly<Tables[Name]>> };
    for (const name of Object.keys(data) as (keyof Tables)[]) {
      tables[name] = new Map(Object.entries(deepFreeze(data[name])));
    }
    this.tables = tables;
  }

  /** A fresh, independent state on top of this base. */
  createState(): DatabaseState<Tables> {
    return new DatabaseState(this);
  }
}

/** One episode's view of the database: reads fall through to the base, writes go to copied records. */
export class DatabaseState<Tables extends Record<string, object>> {
  private readonly changed = new Map<keyof Tables, Map<string, Tables[keyof Tables]>>();

  constructor(readonly base: DatabaseBase<Tables>) {}

  private overlay<Name extends keyof Tables>(table: Name): Map<string, Tables[Name]> {
    let records = this.changed.get(table);
    if (records === undefined) {
      records = new Map();
      this.changed.set(table, records);
    }
    return records as Map<string, Tables[Name]>;
  }

  /** The record as it is now, read-only (base records are frozen: writing to one throws). */
  get<Name extends keyof Tables>(table: Name, id: string): Readonly<Tables[Name]> | undefined {
    const changed = this.changed.get(table)?.get(id);
    if (changed !== undefined) return changed as Tables[Name];
    return this.base.tables[table].get(id);
  }

  has(table: keyof Tables, id: string): boolean {
    return this.get(table, id) !== undefined;
  }

  /** A writable record: the first call per record copies it out of the base. */
  edit<Name extends keyof Tables>(table: Name, id: string): Tables[Name] {
    const records = this.overlay(table);
    const existing = records.get(id);
    if (existing !== undefined) return existing;
    const original = this.base.tables[table].get(id);
    if (original === undefined) throw new RangeError(`no record ${String(table)}[${id}] to edit`);
    const copy = cloneJson(original) as Tables[Name];
    records.set(id, copy);
    return copy;
  }

  /** Adds a new record (or replaces one); new ids iterate after the base's, as in a Python dict. */
  insert<Name extends keyof Tables>(table: Name, id: string, record: Tables[Name]): void {
    this.overlay(table).set(id, record);
  }

  /** Every record id in Python dict order: base ids first, then new ids in insertion order. */
  *ids(table: keyof Tables): Iterable<string> {
    yield* this.base.tables[table].keys();
    const records = this.changed.get(table);
    if (records === undefined) return;
    for (const id of records.keys()) if (!this.base.tables[table].has(id)) yield id;
  }

  /** Every record, read-only, in Python dict order. */
  *values<Name extends keyof Tables>(table: Name): Iterable<Readonly<Tables[Name]>> {
    for (const id of this.ids(table)) yield this.get(table, id) as Tables[Name];
  }

  /** Ids of records copied or inserted in this state. */
  touched(table: keyof Tables): ReadonlySet<string> {
    return new Set(this.changed.get(table)?.keys() ?? []);
  }

  /** Whether two states grown from the same base hold equal data (key order ignored, 1 equals 1.0). */
  equals(other: DatabaseState<Tables>): boolean {
    if (other.base !== this.base) throw new Error("cannot compare database states grown from different bases");
    const tableNames = new Set<keyof Tables>([...this.changed.keys(), ...other.changed.keys()]);
    for (const table of tableNames) {
      const ids = new Set([...this.touched(table), ...other.touched(table)]);
      for (const id of ids) {
        if (!jsonEquals(this.get(table, id), other.get(table, id))) return false;
      }
    }
    return true;
  }

  /** Ids of records whose contents differ between the two states, per table. */
  differences(other: DatabaseState<Tables>): { table: string; id: string }[] {
    const out: { table: string; id: string }[] = [];
    const tableNames = new Set<keyof Tables>([...this.changed.keys(), ...other.changed.keys()]);
    for (const table of tableNames) {
      const ids = new Set([...this.touched(table), ...other.touched(table)]);
      for (const id of ids) {
        if (!jsonEquals(this.get(table, id), other.get(table, id))) out.push({ table: String(table), id });
      }
    }
    return out;
  }

  /** The whole database as plain JSON (for export and for the naive benchmark baseline). */
  toJson(): { [Name in keyof Tables]: Record<string, Tables[Name]> } {
    const out = {} as { [Name in keyof Tables]: Record<string, Tables[Name]> };
    for (const table of Object.keys(this.base.tables) as (keyof Tables)[]) {
      const records: Record<string, Tables[keyof Tables]> = {};
      for (const id of this.ids(table)) records[id] = this.get(table, id) as Tables[keyof Tables];
      out[table] = records;
    }
    return out;
  }
}
