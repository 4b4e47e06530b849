/** One validation gate's result and the whole report. */

/** A gate: its name, whether it passed, and what it found (one line per problem or measurement). */
export interface GateResult {
  name: string;
  passed: boolean;
  details: string[];
}

/** Every gate, in order; `passed` when all passed. */
export interface ValidationReport {
  passed: boolean;
  gates: GateResult[];
}

/** Builds the report from its gates. */
export function validationReport(gates: GateResult[]): ValidationReport {
  return { passed: gates.every((gate) => gate.passed), gates };
}

/** One line per gate: `PASS name: first detail` / `FAIL …`, then the further details indented. */
export function formatValidationReport(report: ValidationReport): string {
  const lines: string[] = [];
  for (const gate of report.gates) {
    lines.push(`${gate.passed ? "PASS" : "FAIL"} ${gate.name}${gate.details.length > 0 ? `: ${gate.details[0]}` : ""}`);
    for (const detail of gate.details.slice(1, 8)) lines.push(`     ${detail}`);
    if (gate.details.length > 8) lines.push(`     … ${gate.details.length - 8} more`);
  }
  lines.push(report.passed ? "all gates passed" : `${report.gates.filter((gate) => !gate.passed).length} gate(s) failed`);
  return lines.join("\n");
}
