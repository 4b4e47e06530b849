/**
 * `trace compare`: for every training seed, every chosen method under one rollout budget (`compare.budget`: by default
 * what TRACE spent on the seed, so TRACE trains first; or the most TRACE could spend), each of
 * its snapshots evaluated on the target's evaluation tasks; per method and seed `compare/seed-N/<method>/result.json`
 * (a rerun skips methods with a result, and resumes training and evaluation inside the others), then the tables and
 * curves of `compare/` (comparison.md, comparison.csv, curves.csv, curves.svg, curves.png) — from the runs that
 * finished, saying which failed, when some did (`CompareIncompleteError` then).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import pLimit from "p-limit";
import { createRolloutBudget } from "../baselines/budget/rollout-budget.js";
import { createPipelineContext, type PipelineContext } from "../pipeline/pipeline-context.js";
import { readJsonArtifact, writeJsonArtifact } from "../run/json-artifact.js";
import { loadTargetDomains } from "../pipeline/target-tasks.js";
import { passRate, sumPassCounts } from "../pipeline/pass-counts.js";
import { episodesPerIterationAllowance, type GrpoTrainer } from "../pipeline/capability-grpo.js";
import { METHOD_INFO, type CompareMethod } from "./compare-methods.js";
import type { CompareCapability, CompareSetup, MethodOutcome, Snapshot, SnapshotPolicy } from "./compare-setup.js";
import { evaluateSnapshot, type DomainScore } from "./evaluate-snapshot.js";
import { runGepaMethod } from "./methods/gepa-method.js";
import { runMergeMethod } from "./methods/merge-method.js";
import { runSftMethod } from "./methods/sft-method.js";
import { runMixtureMethod, runTargetGrpoMethod } from "./methods/single-adapter-grpo.js";
import { runTraceMethod } from "./methods/trace-method.js";
import { methodSeedRecordSchema, type MethodSeedRecord } from "./method-seed-record.js";
import { writeComparisonReport } from "./report/write-comparison-report.js";
import { TraceError } from "../spec/trace-error.js";

export interface RunCompareOptions {
  context: PipelineContext;
  trainer: GrpoTrainer;
  methods: readonly CompareMethod[];
  seeds: readonly number[];
}

/** No capability environment to train: the synthesize stage kept none. */
export class NoCapabilityEnvironmentsError extends TraceError {
  override readonly name = "NoCapabilityEnvironmentsError";
  constructor(readonly runDirectory: string) {
    super(`${runDirectory} has no capability environments (environments/index.json is empty or missing): run the pipeline's synthesize stage first`, { category: "data" });
  }
}

/** A method run (one method on one seed, or every method of a seed) that failed. */
export interface FailedMethodRun {
  seed: number;
  /** The method, or "every method" when the seed failed before its methods ran (its base evaluation). */
  method: string;
  /** The first line of the error's message. */
  message: string;
}

/**
 * Some method runs failed while the others finished: the report in `directory` has the finished ones, and a rerun
 * (`trace run` or `trace compare`) resumes only the failed ones. The category is the first failure's when it is a
 * project error.
 */
export class CompareIncompleteError extends TraceError {
  override readonly name = "CompareIncompleteError";
  constructor(
    readonly failures: readonly FailedMethodRun[],
    readonly finished: number,
    readonly directory: string,
    firstError: unknown,
  ) {
    super(
      `${failures.length} method run(s) failed — ${failures.map((failure) => `seed ${failure.seed} ${failure.method}: ${failure.message}`).join("; ")} — the other ${finished} are in ${directory}/comparison.md; run again to resume the failed ones`,
      { category: TraceError.isInstance(firstError) ? firstError.category : "internal", cause: firstError },
    );
  }
}

/** The first line of an error's message. */
function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
}

function runMethod(method: Exclude<CompareMethod, "base">, setup: CompareSetup): Promise<MethodOutcome> {
  switch (method) {
    case "trace":
      return runTraceMethod(setup);
    case "grpo-target":
      return runTargetGrpoMethod(setup);
    case "gepa":
      return runGepaMethod(setup);
    case "mixture":
      return runMixtureMethod(setup);
    case "sft":
      return runSftMethod(setup);
    case "merge":
      return runMergeMethod(setup);
  }
}

/** The pass rate over every domain (solved / tasks). */
function overall(domains: readonly DomainScore[]): number {
  return passRate(sumPassCounts(domains));
}

/**
 * The store label of a snapshot's evaluation episodes: seed, method and budget point, plus, for a prompt policy, a
 * digest of the candidate. A rerun resumes a label's episodes; a GEPA method rerun from scratch may deploy another
 * candidate at the same budget point, whose episodes must not be taken for the earlier one's.
 */
export function snapshotLabel(seed: number, method: CompareMethod, episodes: number, policy: SnapshotPolicy): string {
  const label = `seed-${seed}|${method}|${episodes}`;
  if (policy.kind !== "prompt") return label;
  return `${label}|${createHash("sha256").update(JSON.stringify(byName(policy.candidate))).digest("hex").slice(0, 12)}`;
}

/** A record's entries in name order: the same candidate or adapter set, whatever order its keys were written in. */
function byName<Value>(record: Readonly<Record<string, Value>>): [string, Value][] {
  return Object.entries(record).sort(([left], [right]) => left.localeCompare(right));
}

/**
 * What a snapshot's policy is, as a key: the same key is the same agent. A prompt policy with the empty candidate is
 * the base model (GEPA's "agent's own prompt": nothing is appended to the system prompt).
 */
function policyKey(policy: SnapshotPolicy, base: string): string {
  switch (policy.kind) {
    case "model":
      return JSON.stringify(["model", policy.model, policy.adapterPath ?? null]);
    case "prompt":
      if (Object.keys(policy.candidate).length === 0) return policyKey({ kind: "model", model: base }, base);
      return JSON.stringify(["prompt", byName(policy.candidate)]);
    case "routed":
      return JSON.stringify(["routed", byName(policy.adapters).map(([capability, adapter]) => [capability, adapter.model, adapter.adapterPath])]);
  }
}

/**
 * A method's curve: the base agent's scores at 0 episodes, then each snapshot's. A snapshot whose policy was scored
 * already — the base agent (GEPA deploying the agent's own prompt), or an earlier snapshot's (GEPA keeping its
 * candidate, a GRPO run whose latest checkpoint is still the earlier snapshot's) — takes those scores rather than
 * evaluating the same agent on the same tasks and sampling seeds again.
 */
export async function scoreSnapshots(
  snapshots: readonly Snapshot[],
  base: string,
  baseScores: DomainScore[],
  evaluate: (snapshot: Snapshot) => Promise<DomainScore[]>,
): Promise<MethodSeedRecord["snapshots"]> {
  const basePolicy: SnapshotPolicy = { kind: "model", model: base };
  const baseKey = policyKey(basePolicy, base);
  const scored = new Map<string, DomainScore[]>([[baseKey, baseScores]]);
  const curve: MethodSeedRecord["snapshots"] = [{ episodes: 0, policy: basePolicy, domains: baseScores }];
  for (const snapshot of snapshots) {
    const key = policyKey(snapshot.policy, base);
    if (snapshot.episodes === 0 && key === baseKey) continue;
    let domains = scored.get(key);
    if (domains === undefined) {
      domains = await evaluate(snapshot);
      scored.set(key, domains);
    }
    curve.push({ ...snapshot, domains });
  }
  return curve;
}

/** Runs the comparison; returns the paths of the written report files. */
export async function runCompare(options: RunCompareOptions): Promise<string[]> {
  const { context } = options;
  const { config, run } = context;
  const compare = config.compare;
  if (compare === undefined) throw new RangeError("the configuration has no `compare` section");
  const index = run.readEnvironmentIndex();
  if (index.environments.length === 0) throw new NoCapabilityEnvironmentsError(config.runDirectory);
  const capabilities: CompareCapability[] = await Promise.all(index.environments.map(async (entry) => ({ capability: entry.capability, description: entry.description, runner: await context.environment(entry) })));
  const { training } = config;
  // TRACE's allowance: its own limit, and every method's under `compare.budget: "allowance"`.
  const allowance = capabilities.length * training.iterations * episodesPerIterationAllowance(training);
  const tracePaced = compare.budget === "trace" && options.methods.includes("trace");
  if (compare.budget === "trace" && !tracePaced) context.log(`  compare.budget is "trace" but TRACE is not among the methods: every method gets TRACE's allowance (${allowance} rollouts)`);
  const fractions = Array.from({ length: compare.curvePoints }, (_, index) => (index + 1) / compare.curvePoints);
  const domains = await loadTargetDomains(config);
  const routing = existsSync(run.routingFile) ? run.readRoutingFile() : undefined;
  const root = run.compareDirectory;
  mkdirSync(root, { recursive: true });
  const store = context.openStore(run.compareStoreFile);
  const runSeed = async (seed: number, seedContext: PipelineContext): Promise<MethodSeedRecord[]> => {
    const results: MethodSeedRecord[] = [];
    const directory = run.compareSeedDirectory(seed);
    const base = config.model.servedModelName;
    const baseScores = await evaluateSnapshot({ context: seedContext, domains, routing, policy: { kind: "model", model: base }, label: `seed-${seed}|base`, store });
    // What TRACE spent on this seed, known once it has trained (before its snapshots are evaluated).
    let traceSpent: (spent: number) => void = () => {};
    const traceBudget = new Promise<number>((resolve) => (traceSpent = resolve));
    const runOne = async (method: CompareMethod, budgetLimit: number): Promise<MethodSeedRecord> => {
      const file = run.compareResultFile(seed, method);
      if (existsSync(file)) {
        seedContext.log(`  seed ${seed} ${method}: done earlier`);
        const record = readJsonArtifact(file, methodSeedRecordSchema);
        if (method === "trace") traceSpent(record.budget.spent);
        return record;
      }
      const setup: CompareSetup = { context: seedContext, trainer: options.trainer, domains, capabilities, seed, directory, budgetLimit, fractions };
      seedContext.log(`  seed ${seed} ${method}: running (budget ${budgetLimit} rollouts)`);
      const started = Date.now();
      const outcome: MethodOutcome = method === "base" ? { snapshots: [], budget: createRolloutBudget({ limit: budgetLimit }).summary(), notes: [] } : await runMethod(method, setup);
      if (method === "trace") traceSpent(outcome.budget.spent);
      const snapshots: MethodSeedRecord["snapshots"] = await scoreSnapshots(outcome.snapshots, base, baseScores, (snapshot) =>
        evaluateSnapshot({ context: seedContext, domains, routing, policy: snapshot.policy, label: snapshotLabel(seed, method, snapshot.episodes, snapshot.policy), store }),
      );
      const final = snapshots.at(-1)!;
      const machine = await seedContext.machine();
      const evaluation = snapshots.reduce((sum, snapshot) => sum + snapshot.domains.reduce((total, domain) => total + domain.total, 0), 0);
      const record: MethodSeedRecord = {
        method,
        label: METHOD_INFO[method].label,
        group: METHOD_INFO[method].group,
        seed,
        domains: final.domains,
        budget: { limit: outcome.budget.limit, spent: outcome.budget.spent, evaluation },
        curve: snapshots.map((snapshot) => ({ episodes: snapshot.episodes, score: overall(snapshot.domains) })),
        snapshots,
        notes: outcome.notes,
        ...(machine === undefined ? {} : { machine }),
      };
      writeJsonArtifact(file, record);
      seedContext.log(`  seed ${seed} ${method}: pass rate ${(100 * overall(final.domains)).toFixed(1)}% after ${outcome.budget.spent} rollouts (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      if (outcome.notes.length > 0) seedContext.log(`    ${outcome.notes.join("; ")}`);
      return record;
    };
    // `parallelMethods` at once; merge starts once TRACE (whose adapters it merges) is done; when TRACE's spend is the
    // budget, every other method starts once TRACE has trained. Results keep the order of `options.methods`;
    // allSettled lets running methods write their results before an error surfaces.
    const limit = pLimit(compare.parallelMethods);
    const traceDone = options.methods.includes("trace") ? limit(() => runOne("trace", allowance)) : undefined;
    // A TRACE that fails rejects the race, so no method waits for a budget that never comes.
    const spentByTrace = traceDone === undefined ? undefined : Promise.race([traceBudget, traceDone.then((trace) => trace.budget.spent)]);
    // Handled here too: with TRACE the only method, nothing else awaits it, and its rejection must not go unhandled.
    spentByTrace?.catch(() => {});
    const settled = await Promise.allSettled(
      options.methods.map(async (method) => {
        if (method === "trace" && traceDone !== undefined) return traceDone;
        if (method === "merge" && traceDone !== undefined) await traceDone;
        const budgetLimit = tracePaced && spentByTrace !== undefined && method !== "base" ? await spentByTrace : allowance;
        return limit(() => runOne(method, budgetLimit));
      }),
    );
    const traceOutcome = settled[options.methods.indexOf("trace")];
    const traceError: unknown = traceOutcome?.status === "rejected" ? (traceOutcome.reason as unknown) : undefined;
    for (const [index, outcome] of settled.entries()) {
      const method = options.methods[index]!;
      if (outcome.status === "fulfilled") results.push(outcome.value);
      // A method that waited on TRACE's budget fails with TRACE's error: say so rather than repeat it.
      else failures.push({ seed, method, message: method !== "trace" && outcome.reason === traceError ? "not run: TRACE failed on this seed" : firstLine(outcome.reason), error: outcome.reason });
    }
    return results;
  };
  const results: MethodSeedRecord[] = [];
  const failures: (FailedMethodRun & { error: unknown })[] = [];
  try {
    // Seeds in waves of `parallelSeeds`. With more than one, each seed gets a worker process of its own (a tiny model
    // leaves the GPU mostly idle and one worker's engine thread is the bottleneck); otherwise the run's worker serves.
    for (let start = 0; start < options.seeds.length; start += compare.parallelSeeds) {
      const wave = options.seeds.slice(start, start + compare.parallelSeeds);
      // allSettled: a failing seed lets the others finish and write their results before the error surfaces.
      const waveResults = await Promise.allSettled(
        wave.map(async (seed) => {
          if (compare.parallelSeeds === 1) return runSeed(seed, context);
          const seedContext = createPipelineContext(config, (line) => context.log(line.startsWith("  seed ") ? line : `  [seed ${seed}] ${line.trimStart()}`), { closesTargets: false });
          try {
            return await runSeed(seed, seedContext);
          } finally {
            await seedContext.close();
          }
        }),
      );
      for (const [index, settled] of waveResults.entries()) {
        if (settled.status === "fulfilled") results.push(...settled.value);
        else failures.push({ seed: wave[index]!, method: "every method", message: firstLine(settled.reason), error: settled.reason });
      }
    }
  } finally {
    store.close();
  }
  const budgetRule = tracePaced
    ? `what TRACE spent on the seed, in budgeted rollouts (${results.filter((result) => result.method === "trace").map((result) => `seed ${result.seed}: ${result.budget.spent}`).join("; ")}; TRACE itself within its allowance of ${allowance})`
    : `${allowance} budgeted rollouts (TRACE's allowance)`;
  // Nothing finished: the first failure is the whole story. Otherwise the report shows what finished, and says what did not.
  if (failures.length > 0 && results.length === 0) throw failures[0]!.error;
  const incomplete = failures.map((failure) => `seed ${failure.seed} ${failure.method} (${failure.message})`);
  const written = await writeComparisonReport(root, results, { title: `${config.name}: methods at an equal rollout budget`, budget: allowance, budgetRule, ...(incomplete.length > 0 ? { incomplete } : {}) });
  if (failures.length > 0) {
    throw new CompareIncompleteError(
      failures.map(({ seed, method, message }) => ({ seed, method, message })),
      results.length,
      root,
      failures[0]!.error,
    );
  }
  return written;
}
