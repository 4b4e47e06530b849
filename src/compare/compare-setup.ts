/** What every method of `trace compare` gets for one training seed, and what it gives back. */
import type { BudgetSummary } from "../baselines/budget/rollout-budget.js";
import type { Candidate } from "../baselines/gepa/candidate.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import type { TargetDomain } from "../pipeline/target-tasks.js";
import type { GrpoTrainer } from "../pipeline/capability-grpo.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";

/** A capability environment of the run (from `environments/index.json`). */
export interface CompareCapability {
  capability: string;
  description: string;
  runner: ModuleRunner;
}

export interface CompareSetup {
  context: PipelineContext;
  trainer: GrpoTrainer;
  domains: readonly TargetDomain[];
  capabilities: readonly CompareCapability[];
  /** The training seed. */
  seed: number;
  /** `RUN/compare/seed-<seed>`. */
  directory: string;
  /** Budgeted rollouts the method may spend (`compare.budget`: what TRACE spent on this seed, or TRACE's allowance). */
  budgetLimit: number;
  /** Curve points as shares of the budget, ascending, ending at 1. */
  fractions: readonly number[];
}

/** How a snapshot of a method answers a task. */
export type SnapshotPolicy =
  /** One served model (the base, or an adapter loaded from `adapterPath` under `model`). */
  | { kind: "model"; model: string; adapterPath?: string }
  /** The routing decision's capability picks its adapter; tasks routed to "none of these" (or a capability without an adapter yet) get the base. */
  | { kind: "routed"; adapters: Readonly<Record<string, { model: string; adapterPath: string }>> }
  /** The base model with a GEPA candidate in its system prompt. */
  | { kind: "prompt"; candidate: Candidate };

/** The method after `episodes` budgeted rollouts. */
export interface Snapshot {
  episodes: number;
  policy: SnapshotPolicy;
}

/** What a method gives back: its snapshots (ascending, the last is its result) and its ledger. */
export interface MethodOutcome {
  snapshots: Snapshot[];
  budget: BudgetSummary;
  notes: string[];
}
