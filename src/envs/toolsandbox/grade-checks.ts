/**
 * Re-scores conversations given in the shape of `grading_checks.json.gz` (scenario, appended messages, expected
 * result, optionally the databases' history) with the port's evaluation, and compares with the expected scores.
 */
import { DATABASE_NAMESPACES, type DatabaseNamespace, type GradingCheck, type GradingChecks, type Row, type ScenarioData, type ToolSandboxExport } from "./export-schema.js";
import { databaseSchemas, ExecutionHistory, sandboxRow, startingTables, type DatabaseSchemas } from "./execution-history.js";
import { evaluateHistory, type ToolSandboxEvaluation } from "./evaluate.js";
import { PythonException } from "./python-values.js";
import { UnknownScenarioError } from "./unknown-scenario-error.js";

/** One re-scored conversation. */
export interface CheckResult {
  scenario: string;
  description?: string;
  expected: number;
  recomputed: number;
  agree: boolean;
  mapping_agrees: boolean;
  evaluation: ToolSandboxEvaluation;
}

/** Tolerance of agreement on the similarity. */
export const SIMILARITY_TOLERANCE = 1e-6;

function historyOf(schemas: DatabaseSchemas, scenario: ScenarioData, check: GradingCheck): ExecutionHistory {
  if (check.database_history !== undefined) {
    const tables = {} as Record<DatabaseNamespace, Row[]>;
    for (const namespace of DATABASE_NAMESPACES) {
      const rows = check.database_history[namespace];
      if (rows === undefined) throw new PythonException("KeyError", `database_history of ${check.scenario} has no ${namespace}`);
      tables[namespace] = rows;
    }
    return new ExecutionHistory(schemas, tables);
  }
  const tables = startingTables(schemas, scenario);
  for (const message of check.appended_messages) tables.SANDBOX.push(sandboxRow(message));
  return new ExecutionHistory(schemas, tables);
}

function mappingsAgree(left: Record<string, readonly [number, number]>, right: Record<string, readonly [number, number]>): boolean {
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => {
    const a = left[key];
    const b = right[key];
    return a !== undefined && b !== undefined && a[0] === b[0] && Math.abs(a[1] - b[1]) <= SIMILARITY_TOLERANCE;
  });
}

/**
 * Re-scores every check. A check without `database_history` may append only messages that change no world database
 * (conversation, failed or read-only calls); its history is the scenario's start plus those messages.
 */
export function gradeChecks(data: ToolSandboxExport, checks: GradingChecks, source = "checks"): CheckResult[] {
  const schemas = databaseSchemas(data);
  const scenarios = new Map(data.scenarios.map((scenario) => [scenario.name, scenario]));
  const all = [...checks.scripted_checks, ...(checks.unhelpful_agent_baseline ?? [])];
  return all.map((check) => {
    const scenario = scenarios.get(check.scenario);
    if (scenario === undefined) throw new UnknownScenarioError(check.scenario, source);
    const evaluation = evaluateHistory(data, scenario, historyOf(schemas, scenario, check));
    const result: CheckResult = {
      scenario: check.scenario,
      expected: check.expected.similarity,
      recomputed: evaluation.similarity,
      agree: Math.abs(evaluation.similarity - check.expected.similarity) <= SIMILARITY_TOLERANCE,
      mapping_agrees: mappingsAgree(evaluation.milestone_mapping, check.expected.milestone_mapping) && mappingsAgree(evaluation.minefield_mapping, check.expected.minefield_mapping),
      evaluation,
    };
    if (check.description !== undefined) result.description = check.description;
    return result;
  });
}
