/**
 * Agreement between two label sets of the same capabilities, e.g. the reference labeler's run against an LLM
 * analyst's runs: per capability, the share of (trajectory, run) pairs with the same label, Cohen's κ over those pairs,
 * and the overlap (Jaccard) of the trajectories each calls LACKING.
 */
import type { CapabilityLabel } from "../store/trajectory-store.js";
import type { RunFile } from "./run-file.js";

export interface CapabilityAgreement {
  capability: string;
  /** (trajectory, compared run) pairs labeled by both sides. */
  pairs: number;
  /** Share of pairs with the same label. */
  agreement: number;
  /** Cohen's κ over the pairs; null when chance agreement is 1 (both sides use one label only). */
  kappa: number | null;
  /** |LACKING in both| / |LACKING in either|, over the pairs; null when neither side says LACKING. */
  lackingOverlap: number | null;
}

const LABELS: readonly CapabilityLabel[] = ["NA", "PRESENT", "LACKING"];

/** Capability → task key → label, from a run file's six lists. */
function labelsOfRun(run: RunFile): Map<string, Map<string, CapabilityLabel>> {
  const out = new Map<string, Map<string, CapabilityLabel>>();
  for (const [capability, lists] of Object.entries(run.labels)) {
    const byKey = new Map<string, CapabilityLabel>();
    const assign = (keys: readonly string[], label: CapabilityLabel) => keys.forEach((key) => byKey.set(key, label));
    assign([...lists.na_failed, ...lists.na_passed], "NA");
    assign([...lists.present_failed, ...lists.present_passed], "PRESENT");
    assign([...lists.lacking_failed, ...lists.lacking_passed], "LACKING");
    out.set(capability, byKey);
  }
  return out;
}

/** Agreement of `reference` with every run of `compared`, for the capabilities both label. */
export function labelAgreement(reference: RunFile, compared: readonly RunFile[]): CapabilityAgreement[] {
  const referenceLabels = labelsOfRun(reference);
  const comparedLabels = compared.map((run) => labelsOfRun(run));
  const out: CapabilityAgreement[] = [];
  for (const [capability, referenceByKey] of referenceLabels) {
    const pairs: [CapabilityLabel, CapabilityLabel][] = [];
    for (const run of comparedLabels) {
      const byKey = run.get(capability);
      if (byKey === undefined) continue;
      for (const [key, label] of referenceByKey) {
        const other = byKey.get(key);
        if (other !== undefined) pairs.push([label, other]);
      }
    }
    if (pairs.length === 0) continue;
    const agree = pairs.filter(([left, right]) => left === right).length / pairs.length;
    const share = (side: 0 | 1, label: CapabilityLabel) => pairs.filter((pair) => pair[side] === label).length / pairs.length;
    const chance = LABELS.reduce((sum, label) => sum + share(0, label) * share(1, label), 0);
    const both = pairs.filter(([left, right]) => left === "LACKING" && right === "LACKING").length;
    const either = pairs.filter(([left, right]) => left === "LACKING" || right === "LACKING").length;
    out.push({
      capability,
      pairs: pairs.length,
      agreement: agree,
      kappa: chance >= 1 ? null : (agree - chance) / (1 - chance),
      lackingOverlap: either === 0 ? null : both / either,
    });
  }
  return out;
}

function fixed(value: number | null): string {
  return value === null ? "-" : value.toFixed(3);
}

/** A markdown table of agreements. */
export function formatAgreementTable(rows: readonly CapabilityAgreement[]): string {
  const lines = ["| capability | pairs | agreement | Cohen's κ | LACKING overlap |", "|---|---|---|---|---|"];
  for (const row of rows) lines.push(`| ${row.capability} | ${row.pairs} | ${fixed(row.agreement)} | ${fixed(row.kappa)} | ${fixed(row.lackingOverlap)} |`);
  return lines.join("\n");
}
