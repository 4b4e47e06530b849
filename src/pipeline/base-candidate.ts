/**
 * The rule by which a newly trained TRACE-mini base becomes a candidate to replace the shipped one (declared in the
 * thirty-second session of docs/trace-mini-v2.md, read in the thirty-fourth): three tests against a reference base (the
 * shipped one), each read on validation only — (1) issue 16's item 1, well-formed calls and exact identifiers
 * (teacher-forced, greedy) at least 98%; (2) identifiers in its own sampled episodes copied at least as exactly as the
 * reference's; (3) item 2, the designed deficits explaining at least 80% of its failed held-out episodes, with no more
 * failures left unexplained than the reference's.
 */
import type { MechanicsReport } from "../envs/mini/mechanics.js";
import { explainedShare, type MiniFailureSummary } from "./mini-failures.js";

/** Item 1's floor for well-formed calls and exact identifiers, and item 2's for the explained share. */
export const MECHANICS_FLOOR = 0.98;
export const EXPLAINED_FLOOR = 0.8;

/** What the rule reads of one base: its mechanics, and its failures summed over the validation ranges. */
export interface BaseReading {
  mechanics: Pick<MechanicsReport, "toolCallValidity" | "identifierCopying" | "sampled">;
  failures: Pick<MiniFailureSummary, "failed" | "explained" | "other">;
}

/** Each test's outcome, and whether all three hold. */
export interface BaseCandidateVerdict {
  mechanics: boolean;
  sampledIdentifiers: boolean;
  explainedFailures: boolean;
  candidate: boolean;
}

/**
 * `base` against `reference` by the three tests. A reading without sampled episodes fails the second test (the rule
 * needs them), as does a reference without them.
 */
export function judgeBaseCandidate(base: BaseReading, reference: BaseReading): BaseCandidateVerdict {
  const mechanics = base.mechanics.toolCallValidity >= MECHANICS_FLOOR && base.mechanics.identifierCopying >= MECHANICS_FLOOR;
  const sampled = base.mechanics.sampled?.identifierCopying;
  const referenceSampled = reference.mechanics.sampled?.identifierCopying;
  const sampledIdentifiers = sampled !== undefined && referenceSampled !== undefined && sampled >= referenceSampled;
  const explainedFailures = explainedShare(base.failures) >= EXPLAINED_FLOOR && base.failures.other <= reference.failures.other;
  return { mechanics, sampledIdentifiers, explainedFailures, candidate: mechanics && sampledIdentifiers && explainedFailures };
}
