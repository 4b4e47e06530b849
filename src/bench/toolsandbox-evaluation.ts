/**
 * `npm run bench:toolsandbox`: evaluation time per conversation of the port next to ToolSandbox's Python evaluator,
 * on the same conversations (grading_checks.json.gz) in one run, with the scores compared. Needs ToolSandbox's source
 * (TOOLSANDBOX_SOURCE, a checkout of apple/ToolSandbox) and a Python with its dependencies from PyPI plus freezegun
 * (TOOLSANDBOX_PYTHON); not part of the tests.
 */
import { spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { databaseSchemas, ExecutionHistory, sandboxRow, startingTables } from "../envs/toolsandbox/execution-history.js";
import { evaluateHistory } from "../envs/toolsandbox/evaluate.js";
import { DATABASE_NAMESPACES, type DatabaseNamespace, type Row } from "../envs/toolsandbox/export-schema.js";
import { loadGradingChecks, loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";

const { values } = parseArgs({ options: { "data-dir": { type: "string", default: "../shared/data/toolsandbox" } } });
const directory = values["data-dir"];
const source = process.env.TOOLSANDBOX_SOURCE;
const python = process.env.TOOLSANDBOX_PYTHON ?? "python3";
if (source === undefined) {
  console.error("set TOOLSANDBOX_SOURCE to a checkout of apple/ToolSandbox (and TOOLSANDBOX_PYTHON to a Python with its dependencies)");
  process.exit(2);
}
const checksFile = path.resolve(directory, "grading_checks.json.gz");
const script = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../scripts/toolsandbox_evaluation_bench.py");
const pythonRun = spawnSync(python, [script, checksFile], { cwd: source, env: { ...process.env, PYTHONPATH: source }, encoding: "utf8", maxBuffer: 1 << 28 });
if (pythonRun.status !== 0) {
  console.error(pythonRun.stderr);
  process.exit(1);
}
const pythonResults = (JSON.parse(pythonRun.stdout) as { results: { similarity: number; seconds: number }[] }).results;

const data = loadToolSandboxExport(directory);
const checks = loadGradingChecks(checksFile);
const schemas = databaseSchemas(data);
const scenarios = new Map(data.scenarios.map((scenario) => [scenario.name, scenario]));
const all = [...checks.scripted_checks, ...(checks.unhelpful_agent_baseline ?? [])];
const portSeconds: number[] = [];
const identical = all.filter((check, index) => {
  const scenario = scenarios.get(check.scenario)!;
  const tables = check.database_history === undefined ? startingTables(schemas, scenario) : (Object.fromEntries(DATABASE_NAMESPACES.map((namespace) => [namespace, check.database_history![namespace] as Row[]])) as Record<DatabaseNamespace, Row[]>);
  if (check.database_history === undefined) for (const message of check.appended_messages) tables.SANDBOX.push(sandboxRow(message));
  const started = performance.now();
  const evaluation = evaluateHistory(data, scenario, new ExecutionHistory(schemas, tables));
  portSeconds.push((performance.now() - started) / 1000);
  return Math.abs(evaluation.similarity - (pythonResults[index]?.similarity ?? NaN)) <= 1e-9;
}).length;

const mean = (numbers: readonly number[]) => numbers.reduce((sum, value) => sum + value, 0) / numbers.length;
const median = (numbers: readonly number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)] as number;
const pythonSeconds = pythonResults.map((result) => result.seconds);
console.log(`ToolSandbox evaluation — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}, ${all.length} conversations`);
console.log(`${"evaluator".padEnd(26)} ${"mean ms".padStart(9)} ${"median ms".padStart(10)} ${"total s".padStart(8)}`);
for (const [name, seconds] of [["ToolSandbox (Python)", pythonSeconds], ["trace (TypeScript)", portSeconds]] as const) {
  console.log(`${name.padEnd(26)} ${(1000 * mean(seconds)).toFixed(2).padStart(9)} ${(1000 * median(seconds)).toFixed(2).padStart(10)} ${seconds.reduce((sum, value) => sum + value, 0).toFixed(2).padStart(8)}`);
}
console.log(`speed-up ${(mean(pythonSeconds) / mean(portSeconds)).toFixed(1)}×; identical similarities: ${identical} of ${all.length}`);
