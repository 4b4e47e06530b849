/** The τ²-bench domains this package implements, by name, and loading one from a data directory. */
import { airlineDomain } from "./airline/index.js";
import type { Tau2Domain, Tau2DomainName } from "./domain.js";
import { loadTau2DomainData, type Tau2DomainData } from "./domain-data.js";
import { retailDomain } from "./retail/index.js";
import { TraceError } from "../../spec/trace-error.js";

export const TAU2_DOMAINS: Readonly<Record<Tau2DomainName, Tau2Domain>> = {
  airline: airlineDomain as unknown as Tau2Domain,
  retail: retailDomain as unknown as Tau2Domain,
};

/** A domain name that is not airline or retail. */
export class UnknownDomainError extends TraceError {
  override readonly name = "UnknownDomainError";
  constructor(readonly domain: string) {
    super(`unknown τ²-bench domain ${JSON.stringify(domain)} (expected one of: ${Object.keys(TAU2_DOMAINS).join(", ")})`, { category: "usage" });
  }
}

function isTau2DomainName(name: string): name is Tau2DomainName {
  return Object.hasOwn(TAU2_DOMAINS, name);
}

/** Loads `tasks.json`, `db.json` and `policy.md` of a domain from `directory`. */
export function loadTau2Domain(name: string, directory: string, options: { tasksFile?: string } = {}): Tau2DomainData {
  if (!isTau2DomainName(name)) throw new UnknownDomainError(name);
  return loadTau2DomainData(TAU2_DOMAINS[name], directory, options);
}
