/** `trace tau2 gold` and `trace tau2 grade`: check the τ²-bench environments and re-grade τ²-bench results. */
import path from "node:path";
import type { Command } from "commander";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { goldConversation } from "../envs/tau2/gold-trajectory.js";
import { gradeTau2 } from "../envs/tau2/grade.js";
import { DEFAULT_MAX_ERRORS, DEFAULT_MAX_STEPS } from "../envs/tau2/conversation-rules.js";
import { checkTau2ResultsDomain, readTau2Results, tau2ResultsDomain, tau2RunInfo, UnknownTau2TaskError, writeTau2Results, type Tau2Simulation } from "../envs/tau2/results-file.js";
import { checkOutputFilePath } from "../run/path-checks.js";
import { UsageError } from "./usage-error.js";

interface CommonOptions {
  domain: string;
  dataDir: string;
  json?: boolean;
  out?: string;
}

/** `trace tau2 grade`'s options: the domain defaults to the one the results file names. */
type GradeOptions = Omit<CommonOptions, "domain"> & { domain?: string };

function formatReward(value: number | null | undefined): string {
  return value === null || value === undefined ? "  -  " : value.toFixed(3);
}

/** Gold replay: every task's gold actions + communicated items, graded. */
function runGold(options: CommonOptions, write: (line: string) => void): { n: number; perfect: number } {
  if (options.out !== undefined) checkOutputFilePath(options.out, "--out");
  const data = loadTau2Domain(options.domain, options.dataDir);
  const rows: { task_id: string; reward: number }[] = [];
  const simulations: (Tau2Simulation & { rewardInfo: ReturnType<typeof gradeTau2>["rewardInfo"] })[] = [];
  for (const task of data.tasks) {
    const messages = goldConversation(data, task);
    const grade = gradeTau2(data, task, messages, "user_stop");
    rows.push({ task_id: task.id, reward: grade.rewardInfo.reward });
    simulations.push({ id: `gold-${task.id}`, taskId: task.id, trial: 0, seed: null, termination: "user_stop", messages, recordedRewardInfo: null, extra: {}, rewardInfo: grade.rewardInfo });
    if (!options.json) {
      const problems = [...grade.databaseDifferences.map((d) => `db differs at ${d}`), ...(grade.rewardInfo.communicate_checks ?? []).filter((c) => !c.met).map((c) => `not communicated: ${c.info}`)];
      write(`${options.domain} task ${task.id.padStart(3)}  reward ${formatReward(grade.rewardInfo.reward)}${problems.length ? "  " + problems.join("; ") : ""}`);
    }
  }
  const perfect = rows.filter((row) => row.reward === 1).length;
  if (options.out !== undefined) {
    const info = tau2RunInfo({ domain: options.domain, policy: data.policy, agent: "trace_gold_replay", user: "trace_scripted_user", maxSteps: DEFAULT_MAX_STEPS, maxErrors: DEFAULT_MAX_ERRORS });
    writeTau2Results(options.out, { info, tasks: data.tasks, simulations });
  }
  write(`${options.domain}: ${perfect}/${rows.length} gold trajectories score 1.0`);
  if (options.json) write(JSON.stringify({ n: rows.length, perfect, tasks: rows }));
  return { n: rows.length, perfect };
}

/**
 * Re-grades a τ²-bench results file and compares with the recorded rewards. The domain is the file's
 * (`info.environment_info.domain_name`); `--domain` must agree with it, and is needed only when the file names none.
 * Every simulation's task must be in the file or the data directory; all is checked before any grading.
 */
function runGrade(results: string, gradeOptions: GradeOptions, write: (line: string) => void): { n: number; agree: number; disagree: number } {
  if (gradeOptions.out !== undefined) checkOutputFilePath(gradeOptions.out, "--out");
  const loaded = readTau2Results(results);
  const domain = gradeOptions.domain ?? tau2ResultsDomain(loaded.file);
  if (domain === undefined) throw new UsageError(`${results} names no domain (info.environment_info.domain_name); pass --domain`);
  if (gradeOptions.domain !== undefined) checkTau2ResultsDomain(results, loaded.file, gradeOptions.domain, "--domain");
  const options: CommonOptions = { ...gradeOptions, domain };
  const data = loadTau2Domain(options.domain, options.dataDir);
  const tasksById = new Map(data.tasks.map((task) => [task.id, task]));
  for (const task of loaded.tasks) if (!tasksById.has(task.id)) tasksById.set(task.id, task);
  const tasked = loaded.simulations.map((simulation) => {
    const task = tasksById.get(simulation.taskId);
    if (task === undefined) throw new UnknownTau2TaskError(results, simulation.id, simulation.taskId, `the results file's tasks or ${path.join(options.dataDir, "tasks.json")}`);
    return { simulation, task };
  });
  const rows: { id: string; task_id: string; recorded: number | null; recomputed: number; replay_mismatches: number }[] = [];
  const regraded: (Tau2Simulation & { rewardInfo: ReturnType<typeof gradeTau2>["rewardInfo"] })[] = [];
  for (const { simulation, task } of tasked) {
    const grade = gradeTau2(data, task, simulation.messages, simulation.termination);
    const recorded = typeof simulation.recordedRewardInfo?.reward === "number" ? simulation.recordedRewardInfo.reward : null;
    rows.push({ id: simulation.id, task_id: simulation.taskId, recorded, recomputed: grade.rewardInfo.reward, replay_mismatches: grade.replayMismatches.length });
    regraded.push({ ...simulation, rewardInfo: grade.rewardInfo });
    if (!options.json) {
      const flag = recorded === null ? "" : recorded === grade.rewardInfo.reward ? "  agree" : "  DISAGREE";
      const mismatch = grade.replayMismatches.length ? `  replay mismatches: ${grade.replayMismatches.length}` : "";
      write(`${simulation.id}  task ${simulation.taskId.padStart(3)}  ${simulation.termination.padEnd(15)} recorded ${formatReward(recorded)}  recomputed ${formatReward(grade.rewardInfo.reward)}${flag}${mismatch}`);
    }
  }
  const compared = rows.filter((row) => row.recorded !== null);
  const agree = compared.filter((row) => row.recorded === row.recomputed).length;
  const disagree = compared.length - agree;
  const mismatched = rows.filter((row) => row.replay_mismatches > 0).length;
  if (options.out !== undefined) writeTau2Results(options.out, { info: { ...loaded.file.info, regraded_by: "trace tau2 grade" }, tasks: loaded.tasks, simulations: regraded });
  write(`${options.domain}: ${rows.length} simulations, ${agree} agree, ${disagree} disagree with the recorded reward, ${mismatched} with replay mismatches; mean reward ${(rows.reduce((sum, row) => sum + row.recomputed, 0) / Math.max(1, rows.length)).toFixed(3)}`);
  if (options.json) write(JSON.stringify({ n: rows.length, agree, disagree, simulations: rows }));
  return { n: rows.length, agree, disagree };
}

export function registerTau2Commands(program: Command): void {
  const tau2 = program.command("tau2").description("τ²-bench airline / retail environments");
  const write = (line: string) => void process.stdout.write(line + "\n");
  tau2
    .command("gold")
    .description("grade every task's gold trajectory (gold actions + communicated items); all should score 1.0")
    .requiredOption("--domain <domain>", "airline or retail")
    .requiredOption("--data-dir <dir>", "directory with tasks.json, db.json, policy.md")
    .option("--json", "end with one JSON line {n, perfect, tasks}")
    .option("--out <file>", "also write the gold trajectories as a τ²-bench results file")
    .action((options: CommonOptions) => {
      const summary = runGold(options, write);
      if (summary.perfect !== summary.n) process.exitCode = 2;
    });
  tau2
    .command("grade")
    .description("re-grade a τ²-bench results file and compare with the recorded rewards")
    .argument("<results>", "τ²-bench results JSON")
    .option("--domain <domain>", "airline or retail (default: the one the results file names; refused when it names another)")
    .requiredOption("--data-dir <dir>", "directory with tasks.json, db.json, policy.md")
    .option("--json", "end with one JSON line {n, agree, disagree, simulations}")
    .option("--out <file>", "write the re-graded simulations as a τ²-bench results file")
    .action((results: string, options: GradeOptions) => {
      runGrade(results, options, write);
    });
}
