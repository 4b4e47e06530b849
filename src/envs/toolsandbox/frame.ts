/**
 * A small data frame with polars' semantics where ToolSandbox's evaluation depends on them: typed columns,
 * `fill_null(strategy="zero")`, joins on every column (nulls never match), anti joins and `equals`.
 */
import type { Cell, Column, Row } from "./export-schema.js";

/** Typed columns and rows keyed by column name. */
export interface Frame {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
}

/** The kind of a polars dtype string (`Enum(categories=[…])` → `Enum`, `List(String)` → `List`). */
export function dtypeKind(dtype: string): string {
  const parenthesis = dtype.indexOf("(");
  return parenthesis < 0 ? dtype : dtype.slice(0, parenthesis);
}

/** Whether two cells are equal as polars compares them (a null equals only a null). */
export function cellsEqual(left: Cell | undefined, right: Cell | undefined): boolean {
  const a = left ?? null;
  const b = right ?? null;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => item === b[index]);
  }
  return a === b;
}

/** `frame.fill_null(strategy="zero")`: String → "", Boolean → false, numbers → 0; other dtypes keep their nulls. */
export function fillNullZero(frame: Frame): Frame {
  const zeros = new Map<string, Cell>();
  for (const column of frame.columns) {
    const kind = dtypeKind(column.dtype);
    if (kind === "String") zeros.set(column.name, "");
    else if (kind === "Boolean") zeros.set(column.name, false);
    else if (/^(U?Int\d+|Float\d+)$/.test(kind)) zeros.set(column.name, 0);
  }
  const rows = frame.rows.map((row) => {
    const filled: Row = { ...row };
    for (const [name, zero] of zeros) if ((filled[name] ?? null) === null) filled[name] = zero;
    return filled;
  });
  return { columns: frame.columns, rows };
}

/** `frame.drop(name)`, ignoring a missing column as polars 0.20 does. */
export function dropColumn(frame: Frame, name: string): Frame {
  if (!frame.columns.some((column) => column.name === name)) return frame;
  return {
    columns: frame.columns.filter((column) => column.name !== name),
    rows: frame.rows.map((row) => {
      const copy: Row = { ...row };
      delete copy[name];
      return copy;
    }),
  };
}

function rowsJoinEqual(left: Row, right: Row, names: readonly string[]): boolean {
  return names.every((name) => {
    const a = left[name] ?? null;
    const b = right[name] ?? null;
    return a !== null && b !== null && cellsEqual(a, b);
  });
}

/** Row count of `left.join(right, on=left.columns, how="inner")`. */
export function innerJoinCount(left: Frame, right: Frame): number {
  const names = left.columns.map((column) => column.name);
  let count = 0;
  for (const row of left.rows) for (const other of right.rows) if (rowsJoinEqual(row, other, names)) count++;
  return count;
}

/** `left.join(right, on=left.columns, how="anti")`: rows of `left` that match no row of `right`, in order. */
export function antiJoin(left: Frame, right: Frame): Frame {
  const names = left.columns.map((column) => column.name);
  return { columns: left.columns, rows: left.rows.filter((row) => !right.rows.some((other) => rowsJoinEqual(row, other, names))) };
}

/** polars' `DataFrame.equals`: same column names and dtypes, same height, equal cells in order (nulls equal). */
export function framesEqual(left: Frame, right: Frame): boolean {
  if (left.columns.length !== right.columns.length || left.rows.length !== right.rows.length) return false;
  for (let index = 0; index < left.columns.length; index++) {
    const a = left.columns[index] as Column;
    const b = right.columns[index] as Column;
    if (a.name !== b.name || a.dtype !== b.dtype) return false;
  }
  return left.rows.every((row, index) => left.columns.every((column) => cellsEqual(row[column.name], (right.rows[index] as Row)[column.name])));
}
