/** ToolSandbox's reminder tools (`tool_sandbox/tools/reminder.py`) and the range validators they share. */
import type { Row } from "./export-schema.js";
import { PyFloat, pythonStringRepr } from "./python-literal.js";
import { PythonException } from "./python-values.js";
import { columnPredicate, filterRows, rowsToPython } from "./tools-contact.js";
import { isGiven, numberArgument, validateType, type ToolArgument, type ToolImplementation } from "./tool-runtime.js";

function validateRange(value: ToolArgument, name: string, minimum: number, maximum: number): void {
  if (!isGiven(value) || value === null || typeof value === "string") return;
  if (!(typeof value === "number" || typeof value === "boolean" || value instanceof PyFloat)) return;
  const number = numberArgument(value);
  if (number < minimum) throw new PythonException("ValueError", `Parameter '${name}' is smaller than its valid range minimum of ${pythonFloatText(minimum)}.`);
  if (number > maximum) throw new PythonException("ValueError", `Parameter '${name}' is larger than its valid range maximum of ${pythonFloatText(maximum)}.`);
}

function pythonFloatText(value: number): string {
  return Number.isInteger(value) ? `${value}.0` : String(value);
}

/** `validate_timestamp`: between 1980 and 2050 (seconds). */
export function validateTimestamp(value: ToolArgument, name: string, annotation = "Union[float, tool_sandbox.common.utils.NotGiven]"): void {
  validateType(value, name, annotation);
  validateRange(value, name, 315529200.0, 2524604400.0);
}

/** `validate_latitude` / `validate_longitude`. */
export function validateCoordinate(value: ToolArgument, name: string, annotation: string, kind: "latitude" | "longitude"): void {
  validateType(value, name, annotation);
  if (kind === "latitude") validateRange(value, name, -90.0, 90.0);
  else validateRange(value, name, -180.0, 180.0);
}

const REMINDER_FLOAT_COLUMNS = new Set(["creation_timestamp", "reminder_timestamp", "latitude", "longitude"]);

function floatOrNull(value: ToolArgument): number | null {
  return value === null || !isGiven(value) ? null : numberArgument(value);
}

export const REMINDER_TOOLS: Record<string, ToolImplementation> = {
  add_reminder: {
    typechecked: true,
    run(world, args) {
      validateTimestamp(args.reminder_timestamp as ToolArgument, "reminder_timestamp", "float");
      validateCoordinate(args.latitude as ToolArgument, "latitude", "Optional[float]", "latitude");
      validateCoordinate(args.longitude as ToolArgument, "longitude", "Optional[float]", "longitude");
      const reminderId = world.newId();
      world.add("REMINDER", [
        {
          reminder_id: reminderId,
          content: args.content as string,
          creation_timestamp: world.clock.now,
          reminder_timestamp: numberArgument(args.reminder_timestamp as ToolArgument),
          latitude: floatOrNull(args.latitude as ToolArgument),
          longitude: floatOrNull(args.longitude as ToolArgument),
        },
      ]);
      return reminderId;
    },
  },
  modify_reminder: {
    typechecked: true,
    run(world, args) {
      validateTimestamp(args.reminder_timestamp as ToolArgument, "reminder_timestamp");
      validateCoordinate(args.latitude as ToolArgument, "latitude", "Union[float, NoneType, tool_sandbox.common.utils.NotGiven]", "latitude");
      validateCoordinate(args.longitude as ToolArgument, "longitude", "Union[float, NoneType, tool_sandbox.common.utils.NotGiven]", "longitude");
      const fields = ["content", "reminder_timestamp", "latitude", "longitude"] as const;
      if (fields.every((field) => !isGiven(args[field] as ToolArgument))) {
        throw new PythonException("ValueError", "No update information given. At least one new field should be provided among [content, reminder_timestamp, latitude, longitude] in order to modify reminder");
      }
      const reminderId = args.reminder_id as string;
      const targets = world.database("REMINDER").filter((row) => row.reminder_id === reminderId);
      if (targets.length === 0) throw new PythonException("polars.exceptions.NoDataError", `No db entry matching reminder_id=${pythonStringRepr(reminderId)} found`);
      if (targets.length > 1) throw new PythonException("polars.exceptions.DuplicateError", `More than 1 entry with reminder_id=${pythonStringRepr(reminderId)} found`);
      const updated: Row = { ...(targets[0] as Row), creation_timestamp: world.clock.now };
      if (isGiven(args.content as ToolArgument)) updated.content = args.content as string;
      for (const field of ["reminder_timestamp", "latitude", "longitude"] as const) if (isGiven(args[field] as ToolArgument)) updated[field] = floatOrNull(args[field] as ToolArgument);
      world.remove("REMINDER", (row) => row.reminder_id === reminderId, columnPredicate("reminder_id", reminderId));
      world.add("REMINDER", [updated]);
      return null;
    },
  },
  search_reminder: {
    typechecked: true,
    run(world, args) {
      for (const name of ["creation_timestamp_lowerbound", "creation_timestamp_upperbound", "reminder_timestamp_lowerbound", "reminder_timestamp_upperbound"]) validateTimestamp(args[name] as ToolArgument, name);
      validateCoordinate(args.latitude as ToolArgument, "latitude", "Union[float, tool_sandbox.common.utils.NotGiven]", "latitude");
      validateCoordinate(args.longitude as ToolArgument, "longitude", "Union[float, tool_sandbox.common.utils.NotGiven]", "longitude");
      const rows = filterRows(world.database("REMINDER"), [
        { column: "reminder_id", value: args.reminder_id as ToolArgument, kind: "exact" },
        { column: "content", value: args.content as ToolArgument, kind: "fuzzy", threshold: 50 },
        { column: "creation_timestamp", value: args.creation_timestamp_lowerbound as ToolArgument, kind: "at_least" },
        { column: "creation_timestamp", value: args.creation_timestamp_upperbound as ToolArgument, kind: "at_most" },
        { column: "reminder_timestamp", value: args.reminder_timestamp_lowerbound as ToolArgument, kind: "at_least" },
        { column: "reminder_timestamp", value: args.reminder_timestamp_upperbound as ToolArgument, kind: "at_most" },
        { column: "latitude", value: args.latitude as ToolArgument, kind: "exact" },
        { column: "longitude", value: args.longitude as ToolArgument, kind: "exact" },
      ]);
      return rowsToPython(rows, REMINDER_FLOAT_COLUMNS);
    },
  },
  remove_reminder: {
    typechecked: true,
    run(world, args) {
      const reminderId = args.reminder_id as string;
      world.remove("REMINDER", (row) => row.reminder_id === reminderId, columnPredicate("reminder_id", reminderId));
      return null;
    },
  },
};
