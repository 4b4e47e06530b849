/**
 * The records of a capability module's JSON state, as the module reference labeler compares them.
 *
 * A record is a leaf object two levels deep: `state[table][id]` for every top-level `table` whose value is a JSON
 * object (e.g. `state.orders["#W42"]`, `state.flights["HAT001/2024-05-20"]`), whatever the entry holds. A top-level
 * value that is not an object (an array, a scalar) has no ids, so it is one record by itself. Records are compared by
 * canonical JSON (sorted keys), and a record present in one state and absent from the other differs.
 */
import type { Json } from "../envs/modules/capability-module.js";
import { createModuleSdk } from "../envs/modules/module-sdk.js";

const sdk = createModuleSdk();

/** A module's state: top-level tables by name. */
export type ModuleState = { readonly [table: string]: Json };

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Each record of `state` by key (`["table","id"]`, or `["table"]` for a top-level value that is not an object) → its canonical JSON. */
export function stateRecords(state: ModuleState): Map<string, string> {
  const records = new Map<string, string>();
  for (const [table, value] of Object.entries(state)) {
    if (isObject(value)) for (const [id, record] of Object.entries(value)) records.set(JSON.stringify([table, id]), sdk.canonical(record));
    else records.set(JSON.stringify([table]), sdk.canonical(value));
  }
  return records;
}

/** The keys of the records that differ between two states (changed, added or removed). */
export function changedRecords(before: ModuleState, after: ModuleState): Set<string> {
  const first = stateRecords(before);
  const second = stateRecords(after);
  const keys = new Set([...first.keys(), ...second.keys()]);
  return new Set([...keys].filter((key) => first.get(key) !== second.get(key)));
}
