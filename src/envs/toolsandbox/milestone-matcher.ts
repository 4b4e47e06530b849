/**
 * ToolSandbox's milestone matching (`MilestoneMatcher`, `CachedSimilarityCalculator`): each milestone maps to one
 * snapshot index so that the mapped order is a topological order of the milestone DAG (consecutive milestones may
 * share an index), maximising the summed similarity; found by the same depth-first search with the same max-heap
 * order and pruning, so ties resolve to the same mapping.
 */
import type { DatabaseNamespace, MatcherData, MilestoneData, SnapshotConstraintData, ToolSandboxExport } from "./export-schema.js";
import type { ExecutionHistory } from "./execution-history.js";
import { columnSimilarityByName, type ColumnSimilarity } from "./column-similarity.js";
import type { Frame } from "./frame.js";
import { PythonException } from "./python-values.js";
import { snapshotSimilarityByName, type SnapshotSimilarity } from "./snapshot-similarity.js";

/** Milestone index → (snapshot index, similarity), in assignment order. */
export type MilestoneMapping = Map<number, readonly [number, number]>;

interface ResolvedConstraint {
  namespace: DatabaseNamespace;
  similarity: SnapshotSimilarity;
  isGuardrail: boolean;
  reference: number | null;
  target: Frame | null;
  columnSimilarities: Record<string, ColumnSimilarity>;
  kwargs: Record<string, unknown> | undefined;
}

/** The default column similarities per namespace, as the export names them. */
export type DefaultColumnSimilarities = ToolSandboxExport["default_column_similarities"];

function resolveConstraint(constraint: SnapshotConstraintData, defaults: DefaultColumnSimilarities): ResolvedConstraint {
  const columnSimilarities: Record<string, ColumnSimilarity> = {};
  for (const [column, name] of Object.entries(defaults[constraint.database_namespace] ?? {})) columnSimilarities[column] = columnSimilarityByName(name, undefined);
  for (const [column, named] of Object.entries(constraint.column_similarity_overrides)) columnSimilarities[column] = columnSimilarityByName(named.name, named.kwargs);
  return {
    namespace: constraint.database_namespace,
    similarity: snapshotSimilarityByName(constraint.similarity.name),
    isGuardrail: constraint.similarity.name === "guardrail_similarity",
    reference: constraint.reference_milestone_node_index,
    target: constraint.target_dataframe,
    columnSimilarities,
    kwargs: constraint.similarity.kwargs,
  };
}

/** Similarity of one milestone at a snapshot given earlier assignments, cached per (constraint, snapshot, reference). */
class MilestoneSimilarity {
  private readonly constraints: ResolvedConstraint[];
  private readonly caches: Map<string, number>[];

  constructor(
    milestone: MilestoneData,
    defaults: DefaultColumnSimilarities,
    private readonly history: ExecutionHistory,
  ) {
    this.constraints = milestone.snapshot_constraints.map((constraint) => resolveConstraint(constraint, defaults));
    this.caches = this.constraints.map(() => new Map<string, number>());
  }

  calculate(current: number, mapping: MilestoneMapping): number {
    let product = 1;
    let count = 0;
    this.constraints.forEach((constraint, index) => {
      let reference: number | null;
      if (constraint.reference === null) reference = null;
      else if (constraint.reference === -1) reference = this.history.firstUserSandboxMessageIndex;
      else {
        const assigned = mapping.get(constraint.reference);
        if (assigned === undefined) throw new PythonException("KeyError", String(constraint.reference));
        reference = assigned[0];
      }
      const cache = this.caches[index] as Map<string, number>;
      const key = `${current}:${reference}`;
      let value = cache.get(key);
      if (value === undefined) {
        value = constraint.similarity({
          snapshot: this.history.snapshot(constraint.namespace, current),
          target: constraint.target,
          columnSimilarities: constraint.columnSimilarities,
          reference: reference === null ? null : this.history.snapshot(constraint.namespace, reference),
          kwargs: constraint.kwargs,
        });
        cache.set(key, value);
      }
      product *= value;
      if (!constraint.isGuardrail) count += 1;
    });
    if (count === 0) throw new PythonException("ZeroDivisionError", "float division by zero");
    return Math.pow(product, 1 / count);
  }
}

interface Graph {
  nodes: number[];
  edges: [number, number][];
}

function inDegree(graph: Graph, node: number): number {
  return graph.edges.filter(([, to]) => to === node).length;
}

function withoutNode(graph: Graph, node: number): Graph {
  return { nodes: graph.nodes.filter((other) => other !== node), edges: graph.edges.filter(([from, to]) => from !== node && to !== node) };
}

/** The best DAG-consistent mapping and its mean similarity; `null` similarity when the matcher has no milestones. */
export function computeMappingAndSimilarity(matcher: MatcherData, defaults: DefaultColumnSimilarities, history: ExecutionHistory): { mapping: MilestoneMapping; similarity: number | null } {
  if (matcher.dag_nodes.length === 0) return { mapping: new Map(), similarity: null };
  const calculators = matcher.items.map((milestone) => new MilestoneSimilarity(milestone, defaults, history));
  const minimum = history.firstUserSandboxMessageIndex;
  const maximum = history.maxSandboxMessageIndex;

  const search = (assigned: MilestoneMapping, assignedSum: number, remaining: Graph): [MilestoneMapping, number] => {
    if (remaining.nodes.length === 0) return [assigned, assignedSum];
    const last = assigned.size > 0 ? ([...assigned.values()].at(-1) as readonly [number, number])[0] : minimum;
    let bestMapping: MilestoneMapping = new Map();
    let bestSum = -1;
    const heap: [number, number, number][] = [];
    for (const milestone of remaining.nodes) {
      if (inDegree(remaining, milestone) > 0) continue;
      for (let snapshot = maximum; snapshot >= last; snapshot--) {
        const calculator = calculators[milestone];
        if (calculator === undefined) throw new PythonException("IndexError", "list index out of range");
        heap.push([-calculator.calculate(snapshot, assigned), milestone, snapshot]);
      }
    }
    // heapq pops the smallest tuple first: highest similarity, then lowest milestone, then lowest snapshot index.
    heap.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    for (const [negativeSimilarity, milestone, snapshot] of heap) {
      const similarity = -negativeSimilarity;
      if (assignedSum + similarity + remaining.nodes.length - 1 <= bestSum) continue;
      const next: MilestoneMapping = new Map(assigned);
      next.set(milestone, [snapshot, similarity]);
      const [mapping, sum] = search(next, assignedSum + similarity, withoutNode(remaining, milestone));
      if (sum > bestSum) {
        bestMapping = mapping;
        bestSum = sum;
      }
    }
    return [bestMapping, bestSum];
  };

  const [mapping, sum] = search(new Map(), 0, { nodes: [...matcher.dag_nodes], edges: matcher.dag_edges.map(([from, to]) => [from, to]) });
  return { mapping, similarity: sum / matcher.items.length };
}
