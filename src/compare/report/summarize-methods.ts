/** Per-method pass rates over seeds, per domain and overall: the numbers of the comparison tables. */
import { isGradedReward } from "../../run/evaluation-results.js";
import type { MethodGroup, MethodSeedResult } from "./comparison-types.js";
import { groupByMethod } from "./group-by-method.js";
import { meanInterval, summarize, type MeanInterval, type Summary } from "./summary-statistics.js";
import { validateResults } from "./validate-results.js";

/** One method's pass rates (in [0, 1]) and budget use summarized over its seeds. */
export interface MethodSummary {
  method: string;
  label: string;
  group: MethodGroup;
  seeds: number[];
  /** Pass rate per domain, keyed by domain name. */
  domains: Map<string, Summary>;
  /** Mean reward per domain (in [0, 1]; ToolSandbox: the mean similarity), keyed by domain name. */
  meanRewards: Map<string, Summary>;
  /** Pass rate over all domains' episodes of a seed. */
  overall: Summary;
  /** Budgeted rollouts spent. */
  spent: Summary;
}

/** Comparison of all methods, in the order each method first appears. */
export interface ComparisonSummary {
  domains: string[];
  methods: MethodSummary[];
}

/** Groups results by method (first-seen order) and summarizes each over seeds; validates first. */
export function summarizeMethods(results: readonly MethodSeedResult[]): ComparisonSummary {
  const domains = validateResults(results);
  const methods = groupByMethod(results).map((seeds): MethodSummary => {
    const first = seeds[0]!;
    const domainSummaries = new Map(
      domains.map((name) => {
        const rates = seeds.map((seed) => {
          const domain = seed.domains.find((candidate) => candidate.domain === name)!;
          return domain.passed / domain.total;
        });
        return [name, summarize(rates)] as const;
      }),
    );
    const meanRewards = new Map(domains.map((name) => [name, summarize(seeds.map((seed) => seed.domains.find((candidate) => candidate.domain === name)!.meanReward))] as const));
    const overall = seeds.map((seed) => {
      const passed = seed.domains.reduce((sum, domain) => sum + domain.passed, 0);
      const total = seed.domains.reduce((sum, domain) => sum + domain.total, 0);
      return passed / total;
    });
    return {
      method: first.method,
      label: first.label,
      group: first.group,
      seeds: seeds.map((seed) => seed.seed),
      domains: domainSummaries,
      meanRewards,
      overall: summarize(overall),
      spent: summarize(seeds.map((seed) => seed.budget.spent)),
    };
  });
  return { domains, methods };
}

/** The domains whose reward is graded in some result (its mean differs from the pass rate: ToolSandbox's similarity), in first-seen order. */
export function gradedDomains(results: readonly MethodSeedResult[]): string[] {
  return [...new Set(results.flatMap((result) => result.domains.filter((domain) => isGradedReward(domain, domain.meanReward)).map((domain) => domain.domain)))];
}

/** One domain's pass rates per kind of task: its kinds (sorted, with episodes per seed) and each method's summaries. */
export interface KindsSummary {
  domain: string;
  /** Each kind's episodes per seed: the fewest and the most (they differ when the results pool several evaluation splits). */
  kinds: { kind: string; episodes: number; maximumEpisodes: number }[];
  /** Per method (first-seen order), one summary per kind over the seeds that evaluated it; null where none did. */
  methods: { method: string; label: string; rates: (Summary | null)[] }[];
}

/** Pass rates per kind of task, for every domain whose results carry kinds (`DomainResult.groups`); empty when none do. */
export function summarizeKinds(results: readonly MethodSeedResult[]): KindsSummary[] {
  const domains = [...new Set(results.flatMap((result) => result.domains.map((domain) => domain.domain)))];
  const methods = groupByMethod(results);
  return domains.flatMap((domain) => {
    const countsOf = (result: MethodSeedResult) => result.domains.find((candidate) => candidate.domain === domain)?.groups;
    const kinds = [...new Set(results.flatMap((result) => Object.keys(countsOf(result) ?? {})))].sort();
    if (kinds.length === 0) return [];
    return [
      {
        domain,
        kinds: kinds.map((kind) => {
          const totals = results.flatMap((result) => {
            const total = countsOf(result)?.[kind]?.total;
            return total === undefined ? [] : [total];
          });
          return { kind, episodes: totals.length === 0 ? 0 : Math.min(...totals), maximumEpisodes: totals.length === 0 ? 0 : Math.max(...totals) };
        }),
        methods: methods.map((seeds) => ({
          method: seeds[0]!.method,
          label: seeds[0]!.label,
          rates: kinds.map((kind) => {
            const rates = seeds.flatMap((seed) => {
              const count = countsOf(seed)?.[kind];
              return count === undefined || count.total === 0 ? [] : [count.passed / count.total];
            });
            return rates.length === 0 ? null : summarize(rates);
          }),
        })),
      },
    ];
  });
}

/** `reference` against one other method on the seeds both ran: per-seed differences of overall pass rates. */
export interface PairedDifference {
  method: string;
  label: string;
  /** The seeds both ran, ascending. */
  seeds: number[];
  /** reference − method, per seed of `seeds`, in [−1, 1]. */
  differences: number[];
  /** Summary of `differences`. */
  summary: Summary;
  /** The 95% Student-t interval of their mean; null from a single seed. */
  interval: MeanInterval | null;
  /** Seeds where the reference scored higher, and lower. */
  ahead: number;
  behind: number;
}

/**
 * `reference` (a method identifier) against every other method, paired by seed: a method trained on seed s is compared
 * with the reference trained on seed s, so the spread is that of the difference, not of either method alone. Methods
 * without a seed in common are left out; empty when the reference has no results.
 */
export function pairedDifferences(results: readonly MethodSeedResult[], reference: string): PairedDifference[] {
  const overall = (result: MethodSeedResult) => result.domains.reduce((sum, domain) => sum + domain.passed, 0) / result.domains.reduce((sum, domain) => sum + domain.total, 0);
  const referenceBySeed = new Map(results.filter((result) => result.method === reference).map((result) => [result.seed, overall(result)]));
  if (referenceBySeed.size === 0) return [];
  return groupByMethod(results).flatMap((seeds): PairedDifference[] => {
    const first = seeds[0]!;
    if (first.method === reference) return [];
    const paired = seeds.filter((result) => referenceBySeed.has(result.seed)).sort((left, right) => left.seed - right.seed);
    if (paired.length === 0) return [];
    const differences = paired.map((result) => referenceBySeed.get(result.seed)! - overall(result));
    const summary = summarize(differences);
    return [
      {
        method: first.method,
        label: first.label,
        seeds: paired.map((result) => result.seed),
        differences,
        summary,
        interval: meanInterval(summary),
        ahead: differences.filter((difference) => difference > 0).length,
        behind: differences.filter((difference) => difference < 0).length,
      },
    ];
  });
}
