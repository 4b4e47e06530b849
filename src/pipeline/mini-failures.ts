/**
 * TRACE-mini: what explains an agent's failed episodes (the base's, or the routed agent's after TRACE) — each designed deficit of the scripted expert, or
 * something else (`src/envs/mini/deficit-attribution.ts`) — counted over a store's finished episodes of the target;
 * for the something else, the free-running slips its conversations show.
 */
import { attributeMiniFailure, episodeClaims, episodeSlips, type DesignedDeficit, type EpisodeClaims, type EpisodeSlips } from "../envs/mini/index.js";
import type { ModuleEnvironment } from "../envs/modules/module-environment.js";
import { verifierInputFromCalls, verifierInputFromMessages } from "../envs/modules/verifier-input.js";
import type { EpisodeRecord } from "../store/trajectory-store.js";

/** Counts of failed episodes by what explains them (an episode may show several deficits). */
export interface MiniFailureSummary {
  episodes: number;
  failed: number;
  /** Failed episodes showing each designed deficit. */
  byDeficit: Record<DesignedDeficit, number>;
  /** Failed episodes explained by designed deficits alone, and by anything else (possibly besides a deficit). */
  explained: number;
  other: number;
  /** explained / failed (1 when nothing failed). */
  explainedShare: number;
  /** Failed episodes per task family: how many the designed deficits explain, and how many show each deficit. */
  byFamily: Record<string, { failed: number; explained: number; byDeficit: Record<DesignedDeficit, number> }>;
  /**
   * Of the `other` episodes, how many show each free-running slip (`episodeSlips`; an episode may show several), and
   * how many show none of them.
   */
  otherSlips: Record<keyof EpisodeSlips | "none", number>;
  /**
   * Of the `other` episodes, how many close with a reply that claims a change the tools never made, and how many call
   * an order cancelled that they looked up and found not pending (`episodeClaims`: what the expert's early stop says).
   */
  otherClaims: Record<keyof EpisodeClaims, number>;
}

/** A count of 0 for every designed deficit. */
const noDeficits = (): Record<DesignedDeficit, number> => ({ incomplete: 0, payment: 0, precondition: 0 });

/** Attributes every failed finished episode of `records` (episodes of `environment`'s tasks). */
export async function summarizeMiniFailures(environment: ModuleEnvironment, records: readonly EpisodeRecord[]): Promise<MiniFailureSummary> {
  const summary: MiniFailureSummary = { episodes: 0, failed: 0, byDeficit: noDeficits(), explained: 0, other: 0, explainedShare: 1, byFamily: {}, otherSlips: { inventedIdentifier: 0, repeatedWrite: 0, refusedCall: 0, none: 0 }, otherClaims: { unmadeChange: 0, notPendingCalledCancelled: 0 } };
  for (const record of records) {
    if (record.status !== "finished" || record.messages === null) continue;
    summary.episodes += 1;
    if (record.success === true) continue;
    const instance = environment.instance(environment.task(record.taskId));
    const own = await verifierInputFromMessages(environment.runner, instance, record.messages);
    const gold = await verifierInputFromCalls(environment.runner, instance, instance.solution, []);
    const attribution = attributeMiniFailure(instance, own, gold, record.rewardInfo?.breakdown?.COMMUNICATE === 1);
    summary.failed += 1;
    for (const deficit of attribution.deficits) summary.byDeficit[deficit] += 1;
    const explained = attribution.deficits.length > 0 && !attribution.other;
    if (explained) summary.explained += 1;
    else {
      summary.other += 1;
      const slips = Object.entries(episodeSlips(record.messages)).filter(([, shown]) => shown) as [keyof EpisodeSlips, boolean][];
      for (const [slip] of slips) summary.otherSlips[slip] += 1;
      if (slips.length === 0) summary.otherSlips.none += 1;
      const claims = episodeClaims(record.messages);
      for (const claim of Object.keys(claims) as (keyof EpisodeClaims)[]) if (claims[claim]) summary.otherClaims[claim] += 1;
    }
    const family = typeof instance.facts.family === "string" ? instance.facts.family : "unknown";
    const entry = (summary.byFamily[family] ??= { failed: 0, explained: 0, byDeficit: noDeficits() });
    entry.failed += 1;
    if (explained) entry.explained += 1;
    for (const deficit of attribution.deficits) entry.byDeficit[deficit] += 1;
  }
  summary.explainedShare = explainedShare(summary);
  return summary;
}

/** The share of failures the designed deficits explain (1 when nothing failed). */
export function explainedShare(failures: Pick<MiniFailureSummary, "failed" | "explained">): number {
  return failures.failed === 0 ? 1 : failures.explained / failures.failed;
}

/** One log line: how many failed episodes the designed deficits alone explain, by which, and what the others show. */
export function miniFailuresLine(failures: MiniFailureSummary): string {
  const deficits = Object.entries(failures.byDeficit).map(([name, count]) => `${name} ${count}`).join(", ");
  const { inventedIdentifier, repeatedWrite, refusedCall, none } = failures.otherSlips;
  const { unmadeChange, notPendingCalledCancelled } = failures.otherClaims;
  const slips =
    failures.other === 0
      ? ""
      : ` (invented id ${inventedIdentifier}, repeated write ${repeatedWrite}, refused call ${refusedCall}, none of these ${none}; a reply claiming a change never made ${unmadeChange}, of which a looked-up non-pending order called cancelled ${notPendingCalledCancelled})`;
  return `explained by the designed deficits alone: ${failures.explained}/${failures.failed} (${(100 * failures.explainedShare).toFixed(1)}%; ${deficits}; other ${failures.other}${slips})`;
}
