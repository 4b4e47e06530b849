/**
 * The markdown report of an analysis: per capability mean ± sd of Cov and Δ, runs passed, kept or not and example
 * failed tasks; the kept capabilities ranked with their descriptions; labeling failures; and, when an LLM analysis and
 * the reference labeler both labeled the same capabilities, their agreement.
 */
import type { ScoresFile } from "./analysis-directory.js";
import { formatAgreementTable, type CapabilityAgreement } from "./label-agreement.js";
import { isMarginal, MARGINAL_SHARE } from "./keep-stability.js";
import type { RunFile } from "./run-file.js";

export interface AnalysisReportInput {
  title: string;
  scores: ScoresFile;
  /** The run files aggregated (for totals and labeling failures). */
  runs: readonly RunFile[];
  agreement?: readonly CapabilityAgreement[];
}

function meanAndDeviation(mean: number, deviation: number): string {
  return `${mean.toFixed(3)} ± ${deviation.toFixed(3)}`;
}

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

function resampleCell(share: number | undefined): string {
  if (share === undefined) return "-";
  return `${(100 * share).toFixed(0)}%${isMarginal(share) ? " (marginal)" : ""}`;
}

/** Capabilities whose keep decision a resample of the analysed tasks would change often (see `keepStability`). */
export function marginalCapabilities(scores: ScoresFile): { skill: string; status: "kept" | "rejected"; share: number }[] {
  return scores.capabilities.flatMap((score) => (score.kept_in_resamples !== undefined && isMarginal(score.kept_in_resamples) ? [{ skill: score.skill, status: score.status, share: score.kept_in_resamples }] : []));
}

/** The capability table alone (also printed by `trace analyze aggregate`). */
export function formatCapabilityTable(scores: ScoresFile, examples = 4): string {
  const lines = [
    "| capability | Cov mean ± sd | Δ mean ± sd | runs passed | kept | kept in resamples | example failed tasks |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const score of scores.capabilities) {
    const shown = score.example_failed_cases.slice(0, examples).join(", ");
    const more = score.example_failed_cases.length > examples ? ", …" : "";
    lines.push(
      `| ${cell(score.skill)} | ${meanAndDeviation(score.mean_cov, score.std_cov)} | ${meanAndDeviation(score.mean_delta, score.std_delta)} | ` +
        `${score.n_runs_passed}/${score.n_runs_total} | ${score.status === "kept" ? "yes" : "no"} | ${resampleCell(score.kept_in_resamples)} | ${shown}${more} |`,
    );
  }
  return lines.join("\n");
}

/** The whole report as markdown. */
export function formatAnalysisReport(input: AnalysisReportInput): string {
  const { scores, runs } = input;
  const { coverage, gap, minRuns } = scores.thresholds;
  const first = runs[0];
  const lines = [`# Capability analysis: ${input.title}`, ""];
  lines.push(`- labeler: ${scores.labeler ?? "unknown"}; ${scores.runs} labeling run${scores.runs === 1 ? "" : "s"} (${scores.run_files.join(", ")})`);
  if (first !== undefined) lines.push(`- trajectories labeled in the first run: ${first.totals.total_failed} failed, ${first.totals.total_passed} passed`);
  lines.push(`- a capability passes a run when Cov ≥ ${coverage} and Δ ≥ ${gap}; it is kept when it passes in at least ${minRuns} of ${scores.runs} runs`);
  lines.push("", formatCapabilityTable(scores), "");
  if (scores.capabilities.some((score) => score.kept_in_resamples !== undefined)) {
    lines.push(
      `"kept in resamples": the share of 1,000 bootstrap resamples of the analysed tasks (a task's trials together) in which the capability would be kept; ` +
        `between ${100 * MARGINAL_SHARE}% and ${100 - 100 * MARGINAL_SHARE}% the decision is marginal: it rests on which tasks happened to be analysed.`,
    );
    const marginal = marginalCapabilities(scores);
    if (marginal.length > 0) {
      lines.push("", `**Marginal decisions**: ${marginal.map((entry) => `${entry.skill} (${entry.status}; kept in ${(100 * entry.share).toFixed(0)}% of resamples)`).join("; ")}. More tasks or trials in the analysis would settle them.`);
    }
    lines.push("");
  }
  const kept = scores.capabilities.filter((score) => score.status === "kept");
  lines.push(`## Kept capabilities, ranked by mean Δ (${kept.length} of ${scores.capabilities.length})`, "");
  if (kept.length === 0) lines.push("None.");
  kept.forEach((score, index) => {
    lines.push(`${index + 1}. **${score.skill}** (Cov ${score.mean_cov.toFixed(3)}, Δ ${score.mean_delta.toFixed(3)})${score.description === "" ? "" : ` — ${score.description}`}`);
    if (score.example_failed_cases.length > 0) lines.push(`   Failed tasks lacking it: ${score.example_failed_cases.join(", ")}`);
  });
  const failures = runs.flatMap((run) => (run.failures ?? []).map((failure) => ({ attempt: run.attempt, ...failure })));
  if (failures.length > 0) {
    lines.push("", `## Labeling failures (${failures.reduce((sum, failure) => sum + failure.keys.length, 0)} trajectory-runs left unlabeled)`, "");
    for (const failure of failures) lines.push(`- run ${failure.attempt}: ${failure.keys.join(", ")} — ${cell(failure.error)}`);
  }
  if (input.agreement !== undefined && input.agreement.length > 0) {
    lines.push("", "## Agreement with the reference labeler", "", formatAgreementTable(input.agreement));
  }
  return lines.join("\n") + "\n";
}
