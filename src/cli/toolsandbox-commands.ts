/** `trace toolsandbox grade`: re-score conversations with the port of ToolSandbox's evaluation. */
import type { Command } from "commander";
import { gradeChecks } from "../envs/toolsandbox/grade-checks.js";
import { loadGradingChecks, loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";
import { runToolSandboxEvaluationReport, runToolSandboxReport } from "./toolsandbox-rollout.js";
import { UsageError } from "./usage-error.js";

interface GradeOptions {
  dataDir: string;
  json?: boolean;
}

/** Re-scores every conversation of a checks file; the last line (with `--json`) is `{n, agree, results}`. */
export function runToolSandboxGrade(checksFile: string, options: GradeOptions, write: (line: string) => void): { n: number; agree: number } {
  const data = loadToolSandboxExport(options.dataDir);
  const checks = loadGradingChecks(checksFile);
  const results = gradeChecks(data, checks, checksFile);
  const agree = results.filter((result) => result.agree).length;
  const mappingAgree = results.filter((result) => result.mapping_agrees).length;
  if (!options.json) {
    for (const result of results) {
      const flag = result.agree ? (result.mapping_agrees ? "agree" : "agree (mapping differs)") : "DISAGREE";
      write(`${result.scenario.padEnd(72)} expected ${result.expected.toFixed(6)}  recomputed ${result.recomputed.toFixed(6)}  ${flag}`);
    }
  }
  write(`${results.length} conversations, ${agree} agree to 1e-6, ${mappingAgree} with the same milestone mapping`);
  if (options.json) {
    write(JSON.stringify({ n: results.length, agree, mapping_agree: mappingAgree, results: results.map(({ scenario, expected, recomputed }) => ({ scenario, expected, recomputed })) }));
  }
  return { n: results.length, agree };
}

export function registerToolSandboxCommands(program: Command): void {
  const toolsandbox = program.command("toolsandbox").description("ToolSandbox (Apple): scenarios, environment and its own scoring");
  const write = (line: string) => void process.stdout.write(line + "\n");
  toolsandbox
    .command("grade")
    .description("re-score conversations (plain or gzip JSON shaped as grading_checks.json.gz) and compare with the expected similarity")
    .argument("<checks>", "JSON with scripted_checks (and optionally unhelpful_agent_baseline)")
    .requiredOption("--data-dir <dir>", "directory with scenarios.json.gz")
    .option("--json", "end with one JSON line {n, agree, results}")
    .action((checks: string, options: GradeOptions) => {
      const summary = runToolSandboxGrade(checks, options, write);
      if (summary.agree !== summary.n) process.exitCode = 2;
    });
  toolsandbox
    .command("report")
    .description("ToolSandbox's figures of a run: mean similarity, perfect count and turns, overall and per category / augmentation")
    .argument("<run>", "run directory of trace rollout --env toolsandbox")
    .option("--out <file>", "also write ToolSandbox's result_summary.json")
    .option("--json", "end with one JSON line: the figures per category")
    .option("--evaluation", "a trace run's evaluation instead (eval/episodes.sqlite): the base and TRACE side by side per category")
    .action((runDir: string, options: { out?: string; json?: boolean; evaluation?: boolean }) => {
      if (options.evaluation === true) {
        if (options.out !== undefined) throw new UsageError("--out writes one agent's result_summary.json: leave it out with --evaluation");
        runToolSandboxEvaluationReport(runDir, options, write);
      } else runToolSandboxReport(runDir, options, write);
    });
}
