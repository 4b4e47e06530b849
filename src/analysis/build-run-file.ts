/** Builds a run file (TRACE reference format) from per-trajectory labels. */
import type { CapabilityLabel } from "../store/trajectory-store.js";
import type { CapabilityLabelLists, LabelingFailure, RunFile } from "./run-file.js";

/** One trajectory's labels in one run. */
export interface LabeledTrajectory {
  key: string;
  failed: boolean;
  /** Capability → label; a complete labeling names every capability of the run. */
  labels: Readonly<Record<string, CapabilityLabel>>;
}

const LIST_OF: Record<CapabilityLabel, { failed: keyof CapabilityLabelLists; passed: keyof CapabilityLabelLists }> = {
  LACKING: { failed: "lacking_failed", passed: "lacking_passed" },
  PRESENT: { failed: "present_failed", passed: "present_passed" },
  NA: { failed: "na_failed", passed: "na_passed" },
};

/**
 * The run file of labeling run `attempt`: totals count the labeled trajectories; each capability's six lists keep the
 * trajectories' order. Trajectories missing a capability's label are left out of the run (and should be in `failures`).
 */
export function buildRunFile(options: {
  attempt: number;
  capabilities: readonly string[];
  trajectories: readonly LabeledTrajectory[];
  failures?: readonly LabelingFailure[];
}): RunFile {
  const complete = options.trajectories.filter((trajectory) => options.capabilities.every((capability) => trajectory.labels[capability] !== undefined));
  const labels: Record<string, CapabilityLabelLists> = {};
  for (const capability of options.capabilities) {
    const lists: CapabilityLabelLists = { lacking_failed: [], present_failed: [], na_failed: [], lacking_passed: [], present_passed: [], na_passed: [] };
    for (const trajectory of complete) {
      const label = trajectory.labels[capability] as CapabilityLabel;
      lists[trajectory.failed ? LIST_OF[label].failed : LIST_OF[label].passed].push(trajectory.key);
    }
    labels[capability] = lists;
  }
  const failed = complete.filter((trajectory) => trajectory.failed).length;
  const run: RunFile = { attempt: options.attempt, totals: { total_failed: failed, total_passed: complete.length - failed }, labels };
  if (options.failures !== undefined && options.failures.length > 0) run.failures = [...options.failures];
  return run;
}
