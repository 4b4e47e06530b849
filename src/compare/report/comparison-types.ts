/** Input types of the `trace compare` report writer: one method's evaluation for one seed. */
import type { PassCount } from "../../run/evaluation-results.js";

/** Which comparison table a method belongs to: Table 1 holds all, Table 3 only consolidation and trace. */
export type MethodGroup = "baseline" | "consolidation" | "trace";

/** One domain's evaluation: passed/total episodes and mean reward. */
export interface DomainResult {
  domain: string;
  passed: number;
  total: number;
  meanReward: number;
  /** Passed/total episodes per kind of task (e.g. TRACE-mini's task families), when the target names kinds. */
  groups?: Record<string, PassCount>;
}

/** Budgeted rollouts a method spent (training + calibration + selection) and evaluation episodes it ran. */
export interface BudgetUse {
  limit: number;
  spent: number;
  evaluation: number;
}

/** Pass rate in [0, 1] on the evaluation set after `episodes` budgeted rollouts. */
export interface CurvePoint {
  episodes: number;
  score: number;
}

/** One method's result for one seed. */
export interface MethodSeedResult {
  /** Identifier, e.g. "trace", "grpo-target", "gepa", "base". */
  method: string;
  /** Display name, e.g. "TRACE (routed adapters)". */
  label: string;
  group: MethodGroup;
  seed: number;
  /** Evaluation per domain (e.g. "airline", "retail", or "mini"). */
  domains: DomainResult[];
  budget: BudgetUse;
  /** Score after each evaluated number of budgeted rollouts; at least the final point. */
  curve: CurvePoint[];
  /** What the method reports about its run (e.g. GEPA's pool and whether it kept the agent's own prompt). */
  notes?: readonly string[];
  /** The machine that produced this result (the worker's accelerator, dtype, library versions, deterministic mode). */
  machine?: string;
}

/** Options of the comparison report. */
export interface ComparisonReportOptions {
  /** Heading of comparison.md and title of the curves chart. */
  title: string;
  /** The most budgeted rollouts allowed to a method and seed (each result records its own limit). */
  budget: number;
  /** Where each method's limit comes from, for the report's budget line [the same `budget` for every method and seed]. */
  budgetRule?: string;
  /** Method runs that failed, one phrase each ("seed 0 mixture (why)"): the report says it is incomplete. */
  incomplete?: readonly string[];
  /**
   * When the results pool several runs (`trace pool`): what each seed number of the report stands for, indexed by it
   * ("runs/a seed 0"); the report lists them under the budget line.
   */
  replicates?: readonly string[];
  /**
   * When the pooled runs were evaluated on several task splits: each split's name and the replicates (seed numbers of
   * the report) evaluated on it. With two or more, the report adds TRACE's paired lead over splits as well as over runs.
   */
  splits?: readonly EvaluationSplit[];
}

/** One evaluation split of a pooled report: its name and the replicates evaluated on it. */
export interface EvaluationSplit {
  name: string;
  replicates: readonly number[];
}
