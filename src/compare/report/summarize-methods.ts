/** Per-method pass rates over seeds, per domain and overall: the numbers of the comparison tables. */
import type { MethodGroup, MethodSeedResult } from "./comparison-types.js";
import { groupByMethod } from "./group-by-method.js";
import { summarize, type Summary } from "./summary-statistics.js";
import { validateResults } from "./validate-results.js";

/** One method's pass rates (in [0, 1]) and budget use summarized over its seeds. */
export interface MethodSummary {
  method: string;
  label: string;
  group: MethodGroup;
  seeds: number[];
  /** Pass rate per domain, keyed by domain name. */
  domains: Map<string, Summary>;
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
      overall: summarize(overall),
      spent: summarize(seeds.map((seed) => seed.budget.spent)),
    };
  });
  return { domains, methods };
}

/** One domain's pass rates per kind of task: its kinds (sorted, with episodes per seed) and each method's summaries. */
export interface KindsSummary {
  domain: string;
  kinds: { kind: string; episodes: number }[];
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
        kinds: kinds.map((kind) => ({ kind, episodes: results.map((result) => countsOf(result)?.[kind]?.total).find((total) => total !== undefined) ?? 0 })),
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
