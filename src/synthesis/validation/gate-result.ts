/** One validation gate's result and the whole report. */
import { escapeControlCharacters } from "./module-text.js";

/** A gate: its name, whether it passed, and what it found (one line per problem or measurement). */
export interface GateResult {
  name: string;
  passed: boolean;
  details: string[];
  /** True when the gate was not run (an earlier gate failed or a module call timed out); such a gate does not pass. */
  notRun?: boolean;
}

/** Every gate, in order; `passed` when all passed. */
export interface ValidationReport {
  passed: boolean;
  gates: GateResult[];
  /** True when gates were left unrun only because a gate failed and the run stops at the first failure. */
  stoppedAtFirstFailure?: boolean;
}

/** Builds the report from its gates. */
export function validationReport(gates: GateResult[], stoppedAtFirstFailure = false): ValidationReport {
  return { passed: gates.every((gate) => gate.passed), gates, ...(stoppedAtFirstFailure ? { stoppedAtFirstFailure } : {}) };
}

/** A gate that was not run, and why. */
export function notRunGate(name: string, reason: string): GateResult {
  return { name, passed: false, notRun: true, details: [`not run: ${reason}`] };
}

/**
 * One line per gate: `PASS name: first detail` / `FAIL …` / `SKIP …` (not run), then the further details indented,
 * then a summary line. Every line has its control characters escaped, so text a module put into a detail cannot
 * start a line of its own or reach the terminal as an escape sequence.
 */
export function formatValidationReport(report: ValidationReport): string {
  const lines: string[] = [];
  for (const gate of report.gates) {
    const status = gate.notRun === true ? "SKIP" : gate.passed ? "PASS" : "FAIL";
    lines.push(`${status} ${gate.name}${gate.details.length > 0 ? `: ${gate.details[0]}` : ""}`);
    for (const detail of gate.details.slice(1, 8)) lines.push(`     ${detail}`);
    if (gate.details.length > 8) lines.push(`     … ${gate.details.length - 8} more`);
  }
  const failed = report.gates.filter((gate) => !gate.passed && gate.notRun !== true).length;
  const notRun = report.gates.filter((gate) => gate.notRun === true).length;
  lines.push(report.passed ? "all gates passed" : `${failed} gate(s) failed${notRun > 0 ? `, ${notRun} not run` : ""}`);
  return lines.map(escapeControlCharacters).join("\n");
}
