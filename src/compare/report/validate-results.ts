/** Checks that results can be compared: present, one per method and seed, same domains, possible counts. */
import type { MethodSeedResult } from "./comparison-types.js";
import { DomainMismatchError } from "./domain-mismatch-error.js";
import { EmptyResultsError } from "./empty-results-error.js";
import { InvalidResultError } from "./invalid-result-error.js";

/** Throws a typed error for the first problem found; returns the domains in the first result's order. */
export function validateResults(results: readonly MethodSeedResult[]): string[] {
  const first = results[0];
  if (first === undefined) throw new EmptyResultsError(results);
  const expectedDomains = first.domains.map((domain) => domain.domain);
  const expected = [...expectedDomains].sort();
  const seen = new Set<string>();
  for (const result of results) {
    const key = JSON.stringify([result.method, result.seed]);
    if (seen.has(key)) throw new InvalidResultError(result.method, result.seed, "more than one result for this method and seed");
    seen.add(key);
    const domains = result.domains.map((domain) => domain.domain);
    const sorted = [...domains].sort();
    const same = sorted.length === expected.length && sorted.every((domain, index) => domain === expected[index]);
    if (!same || new Set(domains).size !== domains.length) {
      throw new DomainMismatchError(result.method, result.seed, domains, expectedDomains);
    }
    for (const domain of result.domains) {
      const countsPossible = Number.isInteger(domain.total) && Number.isInteger(domain.passed) && domain.passed >= 0 && domain.passed <= domain.total;
      if (!countsPossible || domain.total <= 0) {
        throw new InvalidResultError(result.method, result.seed, `domain "${domain.domain}" has ${domain.passed} passed of ${domain.total} episodes`);
      }
    }
    if (result.curve.length === 0) throw new InvalidResultError(result.method, result.seed, "curve has no point");
    if (result.curve.some((point) => !Number.isFinite(point.episodes) || !Number.isFinite(point.score))) {
      throw new InvalidResultError(result.method, result.seed, "curve has a point that is not a finite number");
    }
  }
  return expectedDomains;
}
