/**
 * ToolSandbox's snapshot similarities (`tool_sandbox/common/evaluation.py`): how well one database snapshot meets a
 * milestone's constraint, in [0, 1] — `snapshot_similarity` (best one-to-one row assignment, rows scored by the
 * geometric mean of their column similarities), addition / removal / update relative to a reference snapshot,
 * `tool_trace_dependant_similarity` (targets filled from a reference tool trace) and `guardrail_similarity`.
 */
import type { Row } from "./export-schema.js";
import type { ColumnSimilarity } from "./column-similarity.js";
import { antiJoin, dropColumn, fillNullZero, framesEqual, innerJoinCount, type Frame } from "./frame.js";
import { meanHorizontal, negativeLog, numpyMean } from "./polars-arithmetic.js";
import { PythonException, pythonFormat } from "./python-values.js";
import { toolTraceExtractor, type ToolTrace } from "./tool-trace-extractors.js";

/** What a snapshot similarity receives. */
export interface SnapshotSimilarityInput {
  snapshot: Frame;
  target: Frame | null;
  columnSimilarities: Readonly<Record<string, ColumnSimilarity>>;
  reference: Frame | null;
  kwargs?: Record<string, unknown> | undefined;
}

export type SnapshotSimilarity = (input: SnapshotSimilarityInput) => number;

function permutations(size: number): number[][] {
  if (size === 0) return [[]];
  const out: number[][] = [];
  for (const rest of permutations(size - 1)) for (let position = 0; position <= rest.length; position++) out.push([...rest.slice(0, position), size - 1, ...rest.slice(position)]);
  return out.sort((a, b) => {
    for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return (a[index] as number) - (b[index] as number);
    return 0;
  });
}

/**
 * The minimum-cost one-to-one assignment of a square cost matrix, as `scipy.optimize.linear_sum_assignment` finds it;
 * `undefined` where scipy raises (NaN entries, or no assignment of finite cost). Exhaustive: targets have at most a
 * few rows, and snapshot similarity requires as many snapshot rows.
 */
function minimumAssignment(costs: readonly (readonly number[])[]): number[] | undefined {
  if (costs.some((row) => row.some((value) => Number.isNaN(value)))) return undefined;
  let best: number[] | undefined;
  let bestCost = Infinity;
  for (const permutation of permutations(costs.length)) {
    let total = 0;
    for (let row = 0; row < permutation.length; row++) total += (costs[row] as number[])[permutation[row] as number] as number;
    if (total < bestCost) {
      bestCost = total;
      best = permutation;
    }
  }
  return best;
}

/** `snapshot_similarity`. */
export const snapshotSimilarity: SnapshotSimilarity = ({ snapshot, target, columnSimilarities }) => {
  if (target === null) throw new PythonException("AssertionError", "snapshot_similarity needs a target dataframe");
  const snapshotNames = new Set(snapshot.columns.map((column) => column.name));
  if (snapshot.rows.length !== target.rows.length || target.columns.some((column) => !snapshotNames.has(column.name))) return 0;
  if (target.rows.length === 0) throw new PythonException("ValueError", "need at least one array to stack");
  const costs = target.rows.map((targetRow: Row) => {
    const perColumn = target.columns.map((column) => {
      const similarity = columnSimilarities[column.name];
      if (similarity === undefined) throw new PythonException("KeyError", `'${column.name}'`);
      return similarity(snapshot, column.name, targetRow[column.name] ?? null).map(negativeLog);
    });
    return snapshot.rows.map((_, rowIndex) => meanHorizontal(perColumn.map((cells) => cells[rowIndex]!)) ?? NaN);
  });
  const assignment = minimumAssignment(costs);
  if (assignment === undefined) return 0;
  return Math.exp(-numpyMean(assignment.map((column, row) => (costs[row] as number[])[column] as number)));
};

function requireReference(input: SnapshotSimilarityInput, name: string): { target: Frame; reference: Frame } {
  if (input.target === null || input.reference === null) throw new PythonException("AssertionError", `${name} needs a target dataframe and a reference snapshot`);
  return { target: input.target, reference: input.reference };
}

/** `addition_similarity`: the snapshot must contain the reference; the added rows are compared with the target. */
export const additionSimilarity: SnapshotSimilarity = (input) => {
  const { target, reference } = requireReference(input, "addition_similarity");
  const snapshot = fillNullZero(dropColumn(input.snapshot, "sandbox_message_index"));
  const filledReference = fillNullZero(dropColumn(reference, "sandbox_message_index"));
  if (filledReference.rows.length !== innerJoinCount(snapshot, filledReference)) return 0;
  return snapshotSimilarity({ ...input, snapshot: antiJoin(snapshot, filledReference), target: fillNullZero(target), reference: filledReference });
};

/** `removal_similarity`: addition with snapshot and reference swapped. */
export const removalSimilarity: SnapshotSimilarity = (input) => additionSimilarity({ ...input, snapshot: requireReference(input, "removal_similarity").reference, reference: input.snapshot });

/** `update_similarity`: same row count as the reference; the changed rows are compared with the target. */
export const updateSimilarity: SnapshotSimilarity = (input) => {
  const { target, reference } = requireReference(input, "update_similarity");
  const snapshot = fillNullZero(dropColumn(input.snapshot, "sandbox_message_index"));
  const filledReference = fillNullZero(dropColumn(reference, "sandbox_message_index"));
  if (filledReference.rows.length !== snapshot.rows.length) return 0;
  return snapshotSimilarity({ ...input, snapshot: antiJoin(snapshot, filledReference), target: fillNullZero(target), reference: filledReference });
};

function withCell(frame: Frame, name: string, value: string): Frame {
  return { columns: frame.columns, rows: frame.rows.map((row) => ({ ...row, [name]: value })) };
}

/** `tool_trace_dependant_similarity`: fills the target's tool trace or content from the reference's tool traces. */
export const toolTraceDependantSimilarity: SnapshotSimilarity = (input) => {
  const { target, reference } = requireReference(input, "tool_trace_dependant_similarity");
  for (const frame of [input.snapshot, reference]) {
    if (frame.rows.length !== 1) throw new PythonException("SchemaError", "tool_trace_dependant_similarity can only be used with SANDBOX database with only 1 row");
  }
  const fillTo = input.kwargs?.fill_to;
  if (fillTo !== "tool_trace" && fillTo !== "content") throw new PythonException("ValueError", "fill_to must be of type Literal['tool_trace', 'content']");
  const extractorSpec = input.kwargs?.extractor as { name?: unknown } | undefined;
  if (typeof extractorSpec?.name !== "string") throw new PythonException("KeyError", "extractor kwarg must be provided to tool_trace_dependant_similarity");
  const extractor = toolTraceExtractor(extractorSpec.name);
  const traces = (reference.rows[0] as Row).tool_trace as readonly string[] | null;
  if (traces === null || traces === undefined) return 0;
  const extracted: Record<string, unknown>[] = [];
  for (const text of traces) {
    try {
      extracted.push(...extractor(JSON.parse(text) as ToolTrace));
    } catch (error) {
      if (PythonException.isInstance(error) && ["KeyError", "IndexError", "TypeError", "ValueError"].includes(error.pythonType)) continue;
      throw error;
    }
  }
  let similarity = 0;
  try {
    for (const value of extracted) {
      if (fillTo === "tool_trace") {
        const parsed = JSON.parse((target.rows[0] as Row).tool_trace as string) as unknown;
        const candidates = (Array.isArray(parsed) ? parsed : [parsed]) as { arguments: Record<string, unknown> }[];
        const filled: unknown[] = [];
        for (const candidate of candidates) {
          filled.push({ ...candidate, arguments: { ...candidate.arguments, ...value } });
          filled.push({ ...candidate, arguments: { ...value, ...candidate.arguments } });
        }
        similarity = Math.max(similarity, snapshotSimilarity({ ...input, target: withCell(target, "tool_trace", JSON.stringify(filled)) }));
      } else {
        const content = pythonFormat((target.rows[0] as Row).content as string, value);
        similarity = Math.max(similarity, snapshotSimilarity({ ...input, target: withCell(target, "content", content) }));
      }
    }
  } catch (error) {
    if (PythonException.isInstance(error) && (error.pythonType === "IndexError" || error.pythonType === "KeyError")) return 0;
    throw error;
  }
  return similarity;
};

/** `guardrail_similarity`: 1 when the snapshot equals the reference exactly, else 0. */
export const guardrailSimilarity: SnapshotSimilarity = ({ snapshot, reference }) => {
  if (reference === null) throw new PythonException("AssertionError", "guardrail_similarity needs a reference snapshot");
  return framesEqual(snapshot, reference) ? 1 : 0;
};

const SNAPSHOT_SIMILARITIES: Record<string, SnapshotSimilarity> = {
  snapshot_similarity: snapshotSimilarity,
  addition_similarity: additionSimilarity,
  removal_similarity: removalSimilarity,
  update_similarity: updateSimilarity,
  tool_trace_dependant_similarity: toolTraceDependantSimilarity,
  guardrail_similarity: guardrailSimilarity,
};

/** A snapshot similarity by its ToolSandbox name. */
export function snapshotSimilarityByName(name: string): SnapshotSimilarity {
  const similarity = SNAPSHOT_SIMILARITIES[name];
  if (similarity === undefined) throw new PythonException("KeyError", `unknown snapshot similarity ${name}`);
  return similarity;
}
