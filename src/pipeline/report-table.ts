/** The final report (`eval/report.md`): base vs TRACE pass rate per domain and overall (and mean reward where it is graded), adapter gains, routing distribution. */
import { formatCategoryComparison } from "../envs/toolsandbox/category-report.js";
import { hasGradedReward, type EvaluationResults, type PassCount } from "../run/evaluation-results.js";

function rate(count: PassCount): string {
  return count.total === 0 ? "-" : `${((100 * count.passed) / count.total).toFixed(1)}% (${count.passed}/${count.total})`;
}

function delta(before: number, after: number): string {
  const difference = after - before;
  return `${difference >= 0 ? "+" : ""}${difference.toFixed(3)}`;
}

/** Markdown tables of the results. */
export function formatReport(name: string, results: EvaluationResults): string {
  const lines = [`# ${name}: TRACE report`, "", ...(results.machine === undefined ? [] : [`Machine: ${results.machine}.`, ""]), "| domain | base pass rate | TRACE pass rate |", "|---|---|---|"];
  for (const domain of results.domains) lines.push(`| ${domain.domain} | ${rate(domain.base)} | ${rate(domain.trace)} |`);
  lines.push(`| overall (solved / tasks) | ${rate(results.overall.base)} | ${rate(results.overall.trace)} |`, "");
  // A graded reward (ToolSandbox's similarity) says more than its pass rate (the perfect share): show it beside.
  const graded = results.domains.filter(hasGradedReward);
  if (graded.length > 0) {
    lines.push("| domain | base mean reward | TRACE mean reward | gain |", "|---|---|---|---|");
    for (const { domain, meanReward } of graded) lines.push(`| ${domain} | ${meanReward!.base.toFixed(3)} | ${meanReward!.trace.toFixed(3)} | ${delta(meanReward!.base, meanReward!.trace)} |`);
    lines.push("", "The reward is graded here (ToolSandbox: the similarity, its paper's headline figure): a pass in the table above is a reward of 1, and this table is the mean reward.", "");
  }
  const grouped = results.domains.filter((domain) => domain.groups !== undefined && Object.keys(domain.groups).length > 0);
  if (grouped.length > 0) {
    lines.push("| domain | kind of task | base pass rate | TRACE pass rate |", "|---|---|---|---|");
    for (const domain of grouped) {
      for (const [kind, counts] of Object.entries(domain.groups!)) lines.push(`| ${domain.domain} | ${kind} | ${rate(counts.base)} | ${rate(counts.trace)} |`);
    }
    lines.push("");
  }
  if (results.toolsandboxCategories !== undefined) {
    // ToolSandbox's own breakdown (as `trace toolsandbox report --evaluation`): mean similarity and perfect conversations per category.
    lines.push("ToolSandbox per category:", "", "```", formatCategoryComparison(results.toolsandboxCategories.base, results.toolsandboxCategories.trace), "```", "");
  }
  if (results.failures !== undefined) {
    // Which designed deficits the adapters removed: failed episodes showing each, before (base) and after (routed).
    const { base, trace } = results.failures;
    lines.push("| failed held-out episodes showing | base | TRACE |", "|---|---|---|");
    for (const deficit of Object.keys(base.byDeficit)) lines.push(`| ${deficit} | ${base.byDeficit[deficit]} | ${trace.byDeficit[deficit] ?? 0} |`);
    lines.push(`| something else | ${base.other} | ${trace.other} |`);
    // What the expert's early stop says by design; whether the base learned it from there is docs/trace-mini-v2.md's question.
    if (base.otherClaimingUnmadeChange !== undefined) lines.push(`| … of which the reply claims a change never made | ${base.otherClaimingUnmadeChange} | ${trace.otherClaimingUnmadeChange ?? "-"} |`);
    lines.push(`| failed (of episodes) | ${base.failed} of ${base.episodes} | ${trace.failed} of ${trace.episodes} |`, "");
  }
  lines.push("| capability adapter | GRPO iterations | held-out seeds | reward before | reward after | gain |", "|---|---|---|---|---|---|");
  for (const capability of results.capabilities) {
    lines.push(`| ${capability.capability} | ${capability.iterations ?? "-"} | ${capability.seeds.length} | ${capability.before.toFixed(3)} | ${capability.after.toFixed(3)} | ${delta(capability.before, capability.after)} |`);
  }
  if (results.capabilities.length === 0) lines.push("| (no adapters) | | | | | |");
  if (results.untrained !== undefined && results.untrained.length > 0) {
    // A kept capability without an adapter is a deficit TRACE cannot remove: say so beside the ones it trained.
    lines.push("", `Kept by the analysis, no adapter trained: ${results.untrained.map((entry) => `${entry.capability} (${entry.reason})`).join("; ")}.`);
  }
  const routed = results.routing.reduce((sum, entry) => sum + entry.tasks, 0);
  lines.push("", "| routed to | label | tasks | share |", "|---|---|---|---|");
  for (const entry of results.routing) lines.push(`| ${entry.option} | ${entry.label} | ${entry.tasks} | ${routed === 0 ? "-" : `${((100 * entry.tasks) / routed).toFixed(1)}%`} |`);
  const evaluated = (results.routes ?? []).filter((entry) => entry.tasks > 0);
  if (evaluated.length > 0) {
    // Which adapter earns its keep: the evaluation tasks routed to each option, with the base and with TRACE.
    lines.push("", "| evaluation tasks routed to | tasks | base pass rate | TRACE pass rate |", "|---|---|---|---|");
    for (const entry of evaluated) lines.push(`| ${entry.option} | ${entry.tasks} | ${rate(entry.base)} | ${rate(entry.trace)} |`);
  }
  return lines.join("\n") + "\n";
}
