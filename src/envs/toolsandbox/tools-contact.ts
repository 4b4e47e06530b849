/** ToolSandbox's contact tools (`tool_sandbox/tools/contact.py`). */
import type { Row } from "./export-schema.js";
import { extractMatches } from "./fuzzy-match.js";
import { PyFloat, pythonRepr, pythonStringRepr, type PyValue } from "./python-literal.js";
import { PythonException } from "./python-values.js";
import type { SandboxWorld } from "./sandbox-world.js";
import { isGiven, type ToolArgument, type ToolArguments, type ToolImplementation } from "./tool-runtime.js";

/** `validate_phone_number`: `phonenumbers.parse` without a region needs a leading `+` and digits. */
export function validatePhoneNumber(value: ToolArgument): void {
  if (!isGiven(value)) return;
  const text = typeof value === "string" ? value : pythonRepr(value);
  const digits = text.replace(/[^0-9]/g, "");
  if (digits.length < 2 || !/[0-9]/.test(text)) throw new PythonException("phonenumbers.phonenumberutil.NumberParseException", "(1) The string supplied did not seem to be a phone number.");
  if (!text.trim().startsWith("+")) throw new PythonException("phonenumbers.phonenumberutil.NumberParseException", "(0) Missing or invalid default region.");
}

/** A filter of `filter_dataframe`: exact, fuzzy (rapidfuzz WRatio ≥ threshold, best five first) or a bound. */
export type RowFilter = { column: string; value: ToolArgument } & ({ kind: "exact" } | { kind: "fuzzy"; threshold: number } | { kind: "at_least" } | { kind: "at_most" });

function pythonEqualsCell(cell: unknown, value: PyValue): boolean {
  if (cell === null || cell === undefined) return false;
  const number = value instanceof PyFloat ? value.value : value;
  return cell === number || (typeof cell === "number" && typeof number === "boolean" && cell === Number(number)) || (typeof cell === "boolean" && typeof number === "number" && Number(cell) === number);
}

/** `filter_dataframe`: `ValueError` when no criterion is given. */
export function filterRows(rows: readonly Row[], filters: readonly RowFilter[]): Row[] {
  if (filters.every((filter) => !isGiven(filter.value))) {
    throw new PythonException("ValueError", `No search criteria are given. At least one search criteria should be provided among (${filters.map((filter) => pythonStringRepr(filter.column)).join(", ")})`);
  }
  let current = [...rows];
  for (const filter of filters) {
    if (!isGiven(filter.value)) continue;
    const value = filter.value;
    if (filter.kind === "exact") current = current.filter((row) => pythonEqualsCell(row[filter.column], value));
    else if (filter.kind === "fuzzy") {
      if (typeof value !== "string") throw new PythonException("TypeError", "sentence must be a String");
      current = extractMatches(value, current.map((row) => (row[filter.column] ?? null) as string | null), filter.threshold).map((index) => current[index] as Row);
    } else {
      const bound = value instanceof PyFloat ? value.value : (value as number);
      current = current.filter((row) => row[filter.column] !== null && (filter.kind === "at_least" ? (row[filter.column] as number) >= bound : (row[filter.column] as number) <= bound));
    }
  }
  return current;
}

/** `search_contacts(...)` as rows. */
export function searchContacts(world: SandboxWorld, args: ToolArguments): Row[] {
  validatePhoneNumber(args.phone_number as ToolArgument);
  return filterRows(world.database("CONTACT"), [
    { column: "person_id", value: args.person_id as ToolArgument, kind: "exact" },
    { column: "name", value: args.name as ToolArgument, kind: "fuzzy", threshold: 90 },
    { column: "phone_number", value: args.phone_number as ToolArgument, kind: "exact" },
    { column: "relationship", value: args.relationship as ToolArgument, kind: "fuzzy", threshold: 90 },
    { column: "is_self", value: args.is_self as ToolArgument, kind: "exact" },
  ]);
}

/** Rows as Python dicts (floats kept as floats by the caller's column types). */
export function rowsToPython(rows: readonly Row[], floatColumns: ReadonlySet<string> = new Set()): PyValue {
  return rows.map((row) => {
    const out: Record<string, PyValue> = {};
    for (const [key, value] of Object.entries(row)) out[key] = floatColumns.has(key) && typeof value === "number" ? new PyFloat(value) : (value as PyValue);
    return out;
  });
}

export const CONTACT_TOOLS: Record<string, ToolImplementation> = {
  add_contact: {
    typechecked: true,
    run(world, args) {
      validatePhoneNumber(args.phone_number as ToolArgument);
      const personId = world.newId();
      if (args.is_self === true && world.database("CONTACT").some((row) => row.is_self === true)) {
        throw new PythonException("polars.exceptions.DuplicateError", "Self entry already exists. Cannot add another one.");
      }
      world.add("CONTACT", [{ person_id: personId, name: args.name as string, phone_number: args.phone_number as string, relationship: args.relationship as string | null, is_self: args.is_self as boolean }]);
      return personId;
    },
  },
  modify_contact: {
    typechecked: true,
    run(world, args) {
      const fields = ["name", "phone_number", "relationship", "is_self"] as const;
      if (fields.every((field) => !isGiven(args[field] as ToolArgument))) {
        throw new PythonException("ValueError", "No update information given. At least one new field should be provided among [name, phone_number, relationship, is_self] in order to modify contact");
      }
      validatePhoneNumber(args.phone_number as ToolArgument);
      const personId = args.person_id as string;
      const selfEntries = world.database("CONTACT").filter((row) => row.is_self === true);
      if (selfEntries.length > 0 && args.is_self === true && (selfEntries[0] as Row).person_id !== personId) {
        throw new PythonException("polars.exceptions.DuplicateError", "Self entry already exists. Cannot add another one.");
      }
      const targets = world.database("CONTACT").filter((row) => row.person_id === personId);
      if (targets.length === 0) throw new PythonException("polars.exceptions.NoDataError", `No db entry matching person_id=${pythonStringRepr(personId)} found`);
      if (targets.length > 1) throw new PythonException("polars.exceptions.DuplicateError", `More than 1 entry with person_id=${pythonStringRepr(personId)} found`);
      const updated: Row = { ...(targets[0] as Row) };
      for (const field of fields) if (isGiven(args[field] as ToolArgument)) updated[field] = args[field] as string | boolean;
      world.remove("CONTACT", (row) => row.person_id === personId, personIdPredicate(personId));
      world.add("CONTACT", [updated]);
      return null;
    },
  },
  remove_contact: {
    typechecked: true,
    run(world, args) {
      const personId = args.person_id as string;
      world.remove("CONTACT", (row) => row.person_id === personId, personIdPredicate(personId));
      return null;
    },
  },
  search_contacts: {
    typechecked: false,
    run(world, args) {
      return rowsToPython(searchContacts(world, args));
    },
  },
};

/** How polars prints the predicate in `NoDataError` (its memory address replaced by a fixed one). */
export function personIdPredicate(value: string): string {
  return columnPredicate("person_id", value);
}

/** polars' repr of `col(name) == "value"` (truncated as polars truncates it). */
export function columnPredicate(column: string, value: string): string {
  const text = `[(col("${column}")) == (String(${value}))]`;
  const shown = text.length > 30 ? `${text.slice(0, 30)}…` : text;
  return `<Expr ['${shown}'] at 0x7F0000000000>`;
}
