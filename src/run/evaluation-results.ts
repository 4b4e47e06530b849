/** `RUN/eval/results.json`: what the final report shows. */
import type { CategoryFigures } from "../envs/toolsandbox/category-report.js";

/** Solved / attempted episodes. */
export interface PassCount {
  passed: number;
  total: number;
}

/**
 * Whether a score's mean reward says more than its pass rate: the reward is graded (ToolSandbox's similarity, a partial
 * credit) rather than 1 for a pass and 0 otherwise. Reports show a mean-reward table only then.
 */
export function isGradedReward(count: PassCount, meanReward: number): boolean {
  return count.total > 0 && Math.abs(meanReward - count.passed / count.total) > 1e-9;
}

/** Failed episodes, how many show each designed deficit, and how many those deficits alone do not explain. */
export interface FailureCounts {
  episodes: number;
  failed: number;
  byDeficit: Record<string, number>;
  other: number;
  /** Of `other`, how many close with a reply claiming a change the tools never made (absent in older results). */
  otherClaimingUnmadeChange?: number;
}

export interface EvaluationResults {
  /** Per target domain: the base model's rollouts and the routed (TRACE) agent's. */
  domains: {
    domain: string;
    base: PassCount;
    trace: PassCount;
    /** The mean reward of the base's and the routed agent's episodes (ToolSandbox: the mean similarity; absent in older results). */
    meanReward?: { base: number; trace: number };
    /** Per kind of task, when the target names kinds (TRACE-mini: the task family). */
    groups?: Record<string, { base: PassCount; trace: PassCount }>;
  }[];
  /** τ² Appendix C: solved / tasks over both domains. */
  overall: { base: PassCount; trace: PassCount };
  /** Mean reward of the base and of the adapter on each capability environment's held-out seeds; the GRPO iterations the adapter trained (absent in results written before they were recorded). */
  capabilities: { capability: string; seeds: number[]; before: number; after: number; iterations?: number }[];
  /**
   * Capabilities the analysis kept that got no adapter (no environment mapped, or none passed the gates), with the
   * synthesize stage's reason: the report names them, since TRACE cannot gain on them (absent in older results).
   */
  untrained?: { capability: string; reason: string }[];
  /** Tasks routed to each option (capability, or "base" for "none of these"). */
  routing: { option: string; label: string; tasks: number }[];
  /** Per option, the evaluation tasks routed to it and their episodes passed by the base and by the routed agent. */
  routes?: { option: string; label: string; tasks: number; base: PassCount; trace: PassCount }[];
  /**
   * TRACE-mini: the failed held-out episodes of the base and of the routed agent, by what explains them (designed
   * deficits; an episode may show several; `other`: not explained by them alone).
   */
  failures?: { base: FailureCounts; trace: FailureCounts };
  /** A ToolSandbox target: ToolSandbox's figures per scenario category of the base's and the routed agent's episodes. */
  toolsandboxCategories?: { base: Record<string, CategoryFigures>; trace: Record<string, CategoryFigures> };
  /** The machine the figures came from (`PipelineContext.machine`), when the worker could say. */
  machine?: string;
}

/** Whether an evaluated domain's reward is graded for the base or for TRACE (false for results written before mean rewards were recorded). */
export function hasGradedReward(domain: EvaluationResults["domains"][number]): boolean {
  return domain.meanReward !== undefined && (isGradedReward(domain.base, domain.meanReward.base) || isGradedReward(domain.trace, domain.meanReward.trace));
}

/** The environment the evaluate stage stores the base model's episodes of `environment` under (the routed agent's keep its name). */
export function baseEvaluationEnvironment(environment: string): string {
  return `${environment}/base`;
}
