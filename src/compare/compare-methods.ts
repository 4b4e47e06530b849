/** The methods `trace compare` can run, with their display names and table groups. */

export const COMPARE_METHODS = ["base", "trace", "grpo-target", "gepa", "mixture", "sft", "merge"] as const;

export type CompareMethod = (typeof COMPARE_METHODS)[number];

/** Display name and group (Table 1 = every method; Table 3 = consolidation vs TRACE). */
export const METHOD_INFO: Record<CompareMethod, { label: string; group: "baseline" | "consolidation" | "trace" }> = {
  base: { label: "Base agent", group: "baseline" },
  trace: { label: "TRACE (routed capability adapters)", group: "trace" },
  "grpo-target": { label: "GRPO on the target environment", group: "baseline" },
  gepa: { label: "GEPA (capability prompts)", group: "baseline" },
  mixture: { label: "One adapter, GRPO on the capability mixture", group: "consolidation" },
  sft: { label: "One adapter, SFT on synthetic solutions", group: "consolidation" },
  merge: { label: "Capability adapters merged (TIES)", group: "consolidation" },
};
