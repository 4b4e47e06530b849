/**
 * ToolSandbox's `Evaluation.evaluate`: milestone similarity (1 when there are none), minefield similarity (0 when there
 * are none), similarity = milestone similarity unless a minefield matched (then 0), and the effective turn count. An
 * exception during evaluation scores as ToolSandbox's CLI scores a crashed scenario: 0, turn count = max messages.
 */
import type { ScenarioData, ToolSandboxExport } from "./export-schema.js";
import type { ExecutionHistory } from "./execution-history.js";
import { computeMappingAndSimilarity, type MilestoneMapping } from "./milestone-matcher.js";
import { PythonException } from "./python-values.js";

/** ToolSandbox's `EvaluationResult` (plus the exception type when evaluation raised, as its CLI records it). */
export interface ToolSandboxEvaluation {
  milestone_similarity: number;
  minefield_similarity: number;
  similarity: number;
  turn_count: number;
  milestone_mapping: Record<string, [number, number]>;
  minefield_mapping: Record<string, [number, number]>;
  exception_type: string | null;
}

function mappingRecord(mapping: MilestoneMapping, sorted: boolean): Record<string, [number, number]> {
  const entries = [...mapping.entries()];
  if (sorted) entries.sort((a, b) => a[0] - b[0]);
  const out: Record<string, [number, number]> = {};
  for (const [milestone, [snapshot, similarity]] of entries) out[String(milestone)] = [snapshot, similarity];
  return out;
}

/** `get_effective_turn_count`: messages other than system ones, user ↔ execution environment, few-shot and null visibility. */
export function effectiveTurnCount(history: ExecutionHistory): number {
  return history.sandboxRows().filter((row) => {
    const visible = row.visible_to as readonly string[] | null;
    if (row.sender === null || row.sender === "SYSTEM" || visible === null) return false;
    const userExecution = (row.sender === "USER" && row.recipient === "EXECUTION_ENVIRONMENT") || (row.sender === "EXECUTION_ENVIRONMENT" && row.recipient === "USER");
    const fewShot = visible.length === 1 && visible[0] === "USER";
    return !userExecution && !fewShot;
  }).length;
}

/** Evaluates a played conversation's history against its scenario's milestones and minefields. */
export function evaluateHistory(data: Pick<ToolSandboxExport, "default_column_similarities">, scenario: ScenarioData, history: ExecutionHistory): ToolSandboxEvaluation {
  try {
    const milestones = computeMappingAndSimilarity(scenario.evaluation.milestones, data.default_column_similarities, history);
    const minefields = computeMappingAndSimilarity(scenario.evaluation.minefields, data.default_column_similarities, history);
    const milestoneSimilarity = milestones.similarity ?? 1;
    const minefieldSimilarity = minefields.similarity ?? 0;
    return {
      milestone_similarity: milestoneSimilarity,
      minefield_similarity: minefieldSimilarity,
      similarity: minefieldSimilarity === 0 ? milestoneSimilarity : 0,
      turn_count: effectiveTurnCount(history),
      milestone_mapping: mappingRecord(milestones.mapping, true),
      minefield_mapping: mappingRecord(minefields.mapping, false),
      exception_type: null,
    };
  } catch (error) {
    if (!PythonException.isInstance(error) && !(error instanceof SyntaxError)) throw error;
    return crashedEvaluation(scenario, PythonException.isInstance(error) ? error.pythonType : "JSONDecodeError");
  }
}

/** The result ToolSandbox's CLI records for a scenario whose play or evaluation raised. */
export function crashedEvaluation(scenario: ScenarioData, exceptionType: string): ToolSandboxEvaluation {
  return { milestone_similarity: 0, minefield_similarity: 0, similarity: 0, turn_count: scenario.max_messages, milestone_mapping: {}, minefield_mapping: {}, exception_type: exceptionType };
}
