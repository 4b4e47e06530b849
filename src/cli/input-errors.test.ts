/**
 * Bad command-line input is refused before any expensive stage with exactly one line on stderr that names the
 * offending value (no stack trace): a run directory that is a file, a τ² results file of another domain or naming an
 * unknown task, thresholds out of range, an unknown module in `environments.map`, unusable output paths.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { tau2DataDirectory, tau2DomainDirectory } from "../testing/shared-data.js";
import { main } from "./main.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-input-errors-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A plain file where a directory is expected. */
const aFile = path.join(scratch, "a-file");
writeFileSync(aFile, "not a directory\n");

function airlineResults(): string {
  return path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");
}

/** What a `trace` invocation printed and returned. */
interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `trace …` in this process through `main` (what bin/trace.js calls), capturing stdout and stderr. An error `main`
 * throws is what bin/trace.js would print as a stack trace: the test fails with it.
 */
async function trace(args: readonly string[]): Promise<Outcome> {
  const captured = { stdout: "", stderr: "" };
  const writes = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };
  const capture = (stream: "stdout" | "stderr") =>
    ((chunk: string | Uint8Array) => {
      captured[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = capture("stdout");
  process.stderr.write = capture("stderr");
  try {
    const code = await main(["node", "trace", ...args]);
    return { code, ...captured };
  } catch (error) {
    assert.fail(`trace ${args.join(" ")} threw (a stack trace for the user):\n${error instanceof Error ? error.stack : String(error)}\nstderr: ${captured.stderr}`);
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    process.exitCode = undefined;
  }
}

/** Expects a non-zero exit and exactly one `trace: …` line on stderr matching every pattern; returns that line. */
function assertOneLine(outcome: Outcome, args: readonly string[], patterns: readonly RegExp[]): string {
  assert.notEqual(outcome.code, 0, `trace ${args.join(" ")} exits non-zero`);
  assert.doesNotMatch(outcome.stderr, /^\s+at /m, "no stack trace");
  const lines = outcome.stderr.split("\n").filter((line) => line !== "");
  assert.equal(lines.length, 1, `one line on stderr, got:\n${outcome.stderr}`);
  const [line] = lines as [string];
  assert.match(line, /^trace: /);
  for (const pattern of patterns) assert.match(line, pattern);
  return line;
}

/** `trace …` in this process is refused with one line matching every pattern. */
async function refused(args: readonly string[], ...patterns: RegExp[]): Promise<string> {
  return assertOneLine(await trace(args), args, patterns);
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

describe("trace run", () => {
  const config = (overrides: Record<string, unknown> = {}) => {
    const file = path.join(scratch, `config-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        name: "input-errors",
        model: { initTiny: { seed: 0 } },
        target: { dataDirectory: tau2DataDirectory(), domains: ["airline"], tasksPerDomain: 1, maxSteps: 2 },
        ...overrides,
      }),
    );
    return file;
  };

  test("--run-dir that is a file is refused, and --start-over does not delete it", async () => {
    // Once through bin/trace.js itself: what the user sees.
    const args = ["run", config(), "--run-dir", aFile];
    const spawned = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
    assertOneLine({ code: spawned.status ?? -1, stdout: spawned.stdout, stderr: spawned.stderr }, args, [new RegExp(`run directory ${escaped(aFile)}: is a file, not a directory`)]);
    await refused(["run", config(), "--run-dir", aFile, "--start-over"], new RegExp(escaped(aFile)));
    assert.equal(readFileSync(aFile, "utf8"), "not a directory\n");
    const under = path.join(aFile, "run");
    await refused(["run", config(), "--run-dir", under], new RegExp(`run directory ${escaped(under)}: cannot be created: ${escaped(aFile)} is a file`));
  });

  test("an unknown module in environments.map is refused before any stage runs", async () => {
    const runDirectory = path.join(scratch, "unknown-module-run");
    const file = config({ environments: { map: { complete_required_state_changes: "multi_step_completion", correct_write_arguments: "no_such_module" } } });
    const line = await refused(["run", file, "--run-dir", runDirectory], /environments\.map\.correct_write_arguments/, /"no_such_module"/, /known: .*tool_calling_precision/);
    assert.doesNotMatch(line, /complete_required_state_changes/);
    assert.ok(!existsSync(path.join(runDirectory, "store.sqlite")), "no base rollouts");
    assert.ok(!existsSync(path.join(runDirectory, "stages")), "no stage marker");
    assert.ok(!existsSync(runDirectory), "the run directory is not even created");
  });
});

describe("trace run, TRACE-mini base", () => {
  test("a missing model.sft.initialCheckpoint is refused in one line before any demonstration is played", async () => {
    const runDirectory = path.join(scratch, "missing-initial-run");
    const missing = path.join(scratch, "no-such-checkpoint");
    const file = path.join(scratch, "missing-initial.json");
    writeFileSync(file, JSON.stringify({ name: "missing-initial", model: { sft: { initialCheckpoint: missing, demonstrations: 4 } }, target: { kind: "mini", trainingSeeds: 2, evaluationSeedStart: 100, evaluationSeedCount: 1 } }));
    await refused(["run", file, "--run-dir", runDirectory, "--until", "base"], /model\.sft\.initialCheckpoint/, new RegExp(`no checkpoint at ${escaped(missing)}`));
    assert.ok(!existsSync(path.join(runDirectory, "base", "demonstrations.jsonl")), "no demonstrations played");
  });
});

describe("τ² results files", () => {
  const unknownTask = path.join(scratch, "unknown-task.json");
  const results = JSON.parse(readFileSync(airlineResults(), "utf8")) as { simulations: { id: string; task_id: string }[] };
  const renamed = results.simulations[3]!;
  renamed.task_id = "no-such-task";
  writeFileSync(unknownTask, JSON.stringify(results));

  test("trace tau2 grade: a simulation naming an unknown task is one line naming it", async () => {
    await refused(["tau2", "grade", "--domain", "airline", "--data-dir", tau2DomainDirectory("airline"), unknownTask], new RegExp(escaped(unknownTask)), new RegExp(`simulation ${renamed.id} refers to task "no-such-task"`));
  });

  test("trace tau2 grade: --domain other than the results file's is refused naming both", async () => {
    await refused(["tau2", "grade", "--domain", "retail", "--data-dir", tau2DomainDirectory("retail"), airlineResults()], /of domain "airline"/, /--domain asks for "retail"/);
  });

  test("trace tau2 grade: without --domain the results file's domain is graded", async () => {
    const result = await trace(["tau2", "grade", "--data-dir", tau2DomainDirectory("airline"), airlineResults(), "--json"]);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { n: number; agree: number; disagree: number };
    assert.deepEqual([summary.n, summary.agree, summary.disagree], [30, 30, 0]);
    assert.match(result.stdout, /^airline: 30 simulations/m);
  });

  test("trace tau2 grade / gold: --out under a file is refused before grading", async () => {
    const out = path.join(aFile, "graded.json");
    await refused(["tau2", "grade", "--data-dir", tau2DomainDirectory("airline"), airlineResults(), "--out", out], new RegExp(`--out ${escaped(out)}: cannot be written`));
    await refused(["tau2", "gold", "--domain", "airline", "--data-dir", tau2DomainDirectory("airline"), "--out", path.join(scratch, "missing", "gold.json")], /directory .*missing does not exist/);
  });

  test("trace import: another domain or an unknown task is refused and nothing is written", async () => {
    const retailRun = path.join(scratch, "import-retail");
    await refused(["import", airlineResults(), "--env", "tau2-retail", "--run-dir", retailRun], /of domain "airline"/, /--env tau2-retail asks for "retail"/);
    const unknownRun = path.join(scratch, "import-unknown");
    await refused(["import", unknownTask, "--env", "tau2-airline", "--run-dir", unknownRun], /refers to task "no-such-task", which is not in the results file's tasks/);
    assert.ok(!existsSync(retailRun) && !existsSync(unknownRun));
    await refused(["import", airlineResults(), "--env", "tau2-airline", "--run-dir", aFile], new RegExp(`run directory ${escaped(aFile)}: is a file`));
  });
});

describe("trace analyze", () => {
  const runs = path.join(scratch, "runs");
  mkdirSync(runs, { recursive: true });
  const lists = { lacking_failed: ["airline:1"], present_failed: ["airline:2"], na_failed: [], lacking_passed: [], present_passed: ["airline:3"], na_passed: [] };
  writeFileSync(path.join(runs, "run_01.json"), JSON.stringify({ attempt: 1, totals: { total_failed: 2, total_passed: 1 }, labels: { lookup_before_write: lists } }));
  const out = path.join(scratch, "aggregate", "selected_capabilities.json");
  const aggregate = (...extra: string[]) => ["analyze", "aggregate", "--runs", runs, "--out", out, "--min-runs", "1", ...extra];

  test("aggregate: coverage and gap outside their ranges are refused naming the option and value", async () => {
    await refused(aggregate("--coverage", "-3"), /--coverage must be a number in \[0, 1\], got "-3"/);
    await refused(aggregate("--coverage", "1.5"), /--coverage .* got "1\.5"/);
    await refused(aggregate("--gap", "2"), /--gap must be a number in \[-1, 1\], got "2"/);
    await refused(aggregate("--gap", "abc"), /--gap .* got "abc"/);
    assert.ok(!existsSync(out), "nothing written");
  });

  test("aggregate: --min-runs more than the run files, --runs not a directory, --out under a file", async () => {
    await refused(["analyze", "aggregate", "--runs", runs, "--out", out], /--min-runs 8 is more than the 1 run file in /);
    await refused(["analyze", "aggregate", "--runs", aFile, "--out", out], new RegExp(`--runs ${escaped(aFile)}: is a file, not a directory`));
    await refused(["analyze", "aggregate", "--runs", path.join(scratch, "nowhere"), "--out", out], /--runs .*nowhere: no such directory/);
    await refused(["analyze", "aggregate", "--runs", runs, "--out", path.join(aFile, "selected.json"), "--min-runs", "1"], /--out .*cannot be written: .* is a file/);
  });

  test("aggregate: valid thresholds still aggregate", async () => {
    const result = await trace(aggregate("--coverage", "0", "--gap", "-1"));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /kept 1 of 1 capabilities over 1 runs/);
  });

  test("analyze RUN: options are checked before the run is opened or the analyst called", async () => {
    const missingRun = path.join(scratch, "no-run");
    await refused(["analyze", missingRun, "--labeler", "reference", "--coverage", "-3"], /--coverage must be a number in \[0, 1\], got "-3"/);
    const analyst = ["--analyst-url", "http://127.0.0.1:9/v1", "--analyst-model", "m"];
    await refused(["analyze", missingRun, ...analyst, "--temperature", "-1"], /--temperature must be a number ≥ 0, got "-1"/);
    await refused(["analyze", missingRun, ...analyst, "--runs", "3", "--min-runs", "5"], /--min-runs 5 is more than --runs 3/);
    await refused(["analyze", missingRun, "--analyst-url", "not-a-url", "--analyst-model", "m"], /--analyst-url must be an http\(s\) URL, got "not-a-url"/);
  });
});

describe("other commands", () => {
  test("trace rollout: --run-dir that is a file and a malformed --agent-url are refused before any episode", async () => {
    const common = ["rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-model", "m"];
    await refused([...common, "--agent-url", "http://127.0.0.1:9/v1", "--run-dir", aFile], new RegExp(`run directory ${escaped(aFile)}: is a file`));
    const out = path.join(scratch, "rollout-bad-url");
    await refused([...common, "--agent-url", "localhost:8000", "--run-dir", out], /--agent-url must be an http\(s\) URL, got "localhost:8000"/);
    assert.ok(!existsSync(out));
  });

  test("trace export: --out under a file, neither --env nor --training, an adapter without training episodes; trace model init-tiny onto a file; trace serve and trace dashboard --port above 65535", async () => {
    const run = path.join(scratch, "exported-run");
    assert.equal((await trace(["import", airlineResults(), "--env", "tau2-airline", "--run-dir", run])).code, 0);
    await refused(["export", run, "--env", "tau2-airline", "--format", "jsonl", "--out", path.join(aFile, "x.jsonl")], /--out .*cannot be written/);
    await refused(["model", "init-tiny", aFile], new RegExp(`checkpoint directory ${escaped(aFile)}: is a file, not a directory`));
    await refused(["serve", run, "--port", "70000"], /--port must be an integer ≤ 65535, got "70000"/);
    await refused(["export", run, "--format", "jsonl", "--out", path.join(scratch, "x.jsonl")], /export needs --env ENV \(the run's episodes\) or --training ADAPTER/);
    await refused(["export", run, "--training", "nobody", "--format", "jsonl", "--out", path.join(scratch, "x.jsonl")], /has no training episodes of adapter "nobody" \(adapters with training episodes: none\)/);
    await refused(["dashboard", run, "--port", "70000"], /--port must be an integer ≤ 65535, got "70000"/);
  });

  test("a file-system error no check caught is still one line naming the path", { skip: !existsSync("/proc/self") && "needs /proc" }, async () => {
    const run = path.join(scratch, "exported-run");
    // /proc is a directory no file can be created in (even by root): the write itself fails.
    await refused(["export", run, "--env", "tau2-airline", "--format", "jsonl", "--out", "/proc/trace-export.jsonl"], /ENOENT: .*\/proc\/trace-export\.jsonl/);
  });
});
