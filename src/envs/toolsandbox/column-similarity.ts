/**
 * ToolSandbox's column similarities (`tool_sandbox/common/evaluation.py`): each compares one column of a snapshot with
 * a target value and gives one similarity per row, in polars' dtypes (Float32, except `column_one_similarity`'s
 * Float64 literal) with nulls where polars propagates them.
 */
import type { Cell } from "./export-schema.js";
import type { Frame } from "./frame.js";
import type { SimilarityCell } from "./polars-arithmetic.js";
import { isClose, NOT_GIVEN, PythonException } from "./python-values.js";
import { rougeLFMeasure } from "./rouge-l.js";

/** Absolute tolerances per column or argument name (`atol_dict`). */
export type ToleranceMap = Readonly<Record<string, number>>;

/** A column similarity bound to its data arguments. */
export type ColumnSimilarity = (frame: Frame, columnName: string, value: unknown) => SimilarityCell[];

const float32 = (value: number | null): SimilarityCell => ({ value: value === null ? null : Math.fround(value), float32: true });

function columnValues(frame: Frame, columnName: string): Cell[] {
  return frame.rows.map((row) => row[columnName] ?? null);
}

function cellEqualsValue(cell: Cell, value: unknown): boolean {
  if (Array.isArray(cell)) return Array.isArray(value) && cell.length === value.length && cell.every((item, index) => item === value[index]);
  if (typeof cell === "number" && typeof value === "boolean") return cell === Number(value);
  if (typeof cell === "boolean" && typeof value === "number") return Number(cell) === value;
  return cell === value;
}

/** `column_exact_match_similarity`: 1/0 by equality; a null cell gives null (ignored by the row mean); a null value matches nulls. */
export const columnExactMatchSimilarity: ColumnSimilarity = (frame, columnName, value) =>
  columnValues(frame, columnName).map((cell) => {
    if (value === null || value === undefined) return float32(cell === null ? 1 : 0);
    return float32(cell === null ? null : cellEqualsValue(cell, value) ? 1 : 0);
  });

/** `column_close_similarity`: 1 when within the column's tolerance. */
export function columnCloseSimilarity(tolerances: ToleranceMap | undefined): ColumnSimilarity {
  return (frame, columnName, value) => {
    if (typeof value !== "number" || tolerances === undefined) throw new PythonException("AssertionError", "column_close_similarity needs a number and atol_dict");
    return columnValues(frame, columnName).map((cell) => float32(isClose(value, cell, tolerances[columnName]) ? 1 : 0));
  };
}

/** `column_one_similarity`: always 1.0 (a Float64 literal). */
export const columnOneSimilarity: ColumnSimilarity = (frame) => frame.rows.map(() => ({ value: 1, float32: false }));

/** `column_contains_similarity`: 1 when the cell contains the value (literally, case-sensitively); null cells stay null. */
export const columnContainsSimilarity: ColumnSimilarity = (frame, columnName, value) =>
  columnValues(frame, columnName).map((cell) => {
    if (cell === null) return float32(null);
    if (typeof cell !== "string" || typeof value !== "string") throw new PythonException("InvalidOperationError", "str.contains_any needs strings");
    return float32(cell.includes(value) ? 1 : 0);
  });

interface TraceRecord {
  tool_name?: unknown;
  arguments?: unknown;
}

/** Whether a recorded tool trace matches a golden one: same tool, and every golden argument close (missing = NOT_GIVEN). */
export function traceMatches(trace: TraceRecord, golden: TraceRecord, tolerances: ToleranceMap | undefined): boolean {
  if (trace.tool_name !== golden.tool_name) return false;
  const goldenArguments = golden.arguments as Record<string, unknown>;
  const traceArguments = trace.arguments as Record<string, unknown>;
  return Object.keys(goldenArguments).every((name) => isClose(Object.hasOwn(traceArguments, name) ? traceArguments[name] : NOT_GIVEN, goldenArguments[name], tolerances?.[name]));
}

/** The golden traces of a target value: one JSON trace or a JSON list of alternatives. */
export function goldenTraces(value: unknown): TraceRecord[] {
  if (typeof value !== "string") throw new PythonException("TypeError", "the JSON object must be str");
  const parsed = JSON.parse(value) as unknown;
  return Array.isArray(parsed) ? (parsed as TraceRecord[]) : [parsed as TraceRecord];
}

/** `column_tool_trace_exact_match_similarity`: 1 when any trace of the cell matches any golden trace. */
export function columnToolTraceExactMatchSimilarity(tolerances: ToleranceMap | undefined): ColumnSimilarity {
  return (frame, columnName, value) => {
    const goldens = goldenTraces(value);
    return columnValues(frame, columnName).map((cell) => {
      if (cell === null) return float32(0);
      const traces = (cell as readonly string[]).map((text) => JSON.parse(text) as TraceRecord);
      for (const golden of goldens) for (const trace of traces) if (traceMatches(trace, golden, tolerances)) return float32(1);
      return float32(0);
    });
  };
}

/** `column_rouge_l_similarity`: ROUGE-L F-measure of each cell against the value (a null cell is an error, as in Python). */
export const columnRougeLSimilarity: ColumnSimilarity = (frame, columnName, value) =>
  columnValues(frame, columnName).map((cell) => {
    if (typeof cell !== "string" || typeof value !== "string") throw new PythonException("AttributeError", "'NoneType' object has no attribute 'lower'");
    return float32(rougeLFMeasure(value, cell));
  });

/** Resolves a column similarity by its ToolSandbox name and data arguments. */
export function columnSimilarityByName(name: string, kwargs: Record<string, unknown> | undefined): ColumnSimilarity {
  const tolerances = kwargs?.atol_dict as ToleranceMap | undefined;
  switch (name) {
    case "column_exact_match_similarity":
      return columnExactMatchSimilarity;
    case "column_close_similarity":
      return columnCloseSimilarity(tolerances);
    case "column_one_similarity":
      return columnOneSimilarity;
    case "column_contains_similarity":
      return columnContainsSimilarity;
    case "column_tool_trace_exact_match_similarity":
      return columnToolTraceExactMatchSimilarity(tolerances);
    case "column_rouge_l_similarity":
      return columnRougeLSimilarity;
    default:
      throw new PythonException("KeyError", `unknown column similarity ${name}`);
  }
}
