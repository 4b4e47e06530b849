/**
 * Validation of a labeling reply: `{"labels": {trajectory id: {capability: "NA" | "PRESENT" | "LACKING"}}}` naming
 * exactly the batch's trajectories and the dictionary's capabilities. Labels are read case-insensitively; anything
 * else unknown, missing or malformed is a problem and the reply is refused whole.
 */
import { CAPABILITY_LABELS, type CapabilityLabel } from "../store/trajectory-store.js";
import type { Validation } from "./structured-request.js";

/** Trajectory id → capability → label. */
export type BatchLabels = Map<string, Record<string, CapabilityLabel>>;

const MAX_PROBLEMS = 12;

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Checks a parsed reply against the batch's trajectory ids and the capability names. */
export function validateBatchLabels(value: unknown, keys: readonly string[], capabilities: readonly string[]): Validation<BatchLabels> {
  if (!isRecord(value) || !isRecord(value.labels)) return { ok: false, problems: ['the reply must be an object with a "labels" object'] };
  const problems: string[] = [];
  const given = value.labels;
  const expected = new Set(keys);
  const known = new Set(capabilities);
  for (const key of Object.keys(given)) if (!expected.has(key)) problems.push(`unknown trajectory id ${JSON.stringify(key)} (the ids are: ${keys.join(", ")})`);
  const labels: BatchLabels = new Map();
  for (const key of keys) {
    const entry = given[key];
    if (!isRecord(entry)) {
      problems.push(entry === undefined ? `trajectory ${key} is missing` : `trajectory ${key}: expected an object of capability labels`);
      continue;
    }
    const byCapability: Record<string, CapabilityLabel> = {};
    for (const [capability, label] of Object.entries(entry)) {
      if (!known.has(capability)) {
        problems.push(`trajectory ${key}: unknown capability ${JSON.stringify(capability)}`);
        continue;
      }
      const normalized = typeof label === "string" ? label.trim().toUpperCase() : label;
      if (typeof normalized !== "string" || !CAPABILITY_LABELS.includes(normalized as CapabilityLabel)) {
        problems.push(`trajectory ${key}, capability ${capability}: label ${JSON.stringify(label)} is not NA, PRESENT or LACKING`);
        continue;
      }
      byCapability[capability] = normalized as CapabilityLabel;
    }
    const missing = capabilities.filter((capability) => byCapability[capability] === undefined && entry[capability] === undefined);
    if (missing.length > 0) problems.push(`trajectory ${key}: no label for ${missing.join(", ")}`);
    labels.set(key, byCapability);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_PROBLEMS);
    if (problems.length > MAX_PROBLEMS) shown.push(`… and ${problems.length - MAX_PROBLEMS} more problems`);
    return { ok: false, problems: shown };
  }
  return { ok: true, value: labels };
}
