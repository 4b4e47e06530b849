/**
 * Makes adapters samplable on the run's policy sampler — the worker, or the external sampler of the `policy` role —
 * loading each from its directory unless the sampler already serves it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readJsonArtifact, writeJsonArtifact } from "../run/json-artifact.js";
import { TraceError } from "../spec/trace-error.js";
import type { MergedAdapter } from "../worker/trainer-types.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";
import type { PipelineContext } from "./pipeline-context.js";

export async function ensureAdaptersServed(context: PipelineContext, adapters: readonly { model: string; adapterPath: string }[]): Promise<void> {
  if (adapters.length === 0) return;
  const external = context.loraSampler();
  if (external !== undefined) {
    const served = new Set((await external.listModels()).map((entry) => entry.id));
    for (const { model, adapterPath } of adapters) if (!served.has(model)) await external.loadLoraAdapter({ loraName: model, loraPath: adapterPath });
    return;
  }
  const trainer = (await context.worker()).trainerClient();
  const served = new Set((await trainer.listModels()).map((entry) => entry.id));
  for (const { model, adapterPath } of adapters) if (!served.has(model)) await trainer.loadLoraAdapter({ loraName: model, loraPath: adapterPath });
}

/**
 * How a merge is asked for: TIES (default) or linear (the weighted sum of the deltas, nothing trimmed), each source's
 * weight (unset: 1/n), the share of each source's entries a TIES merge keeps (unset: the worker's 0.2) and the merged
 * adapter's rank (unset: the sum of the sources', exact for a linear merge).
 */
export interface MergeSettings {
  method?: "ties" | "linear" | undefined;
  weight?: number | undefined;
  density?: number | undefined;
  rank?: number | undefined;
}

/**
 * The merge TRACE's multi-part route serves (`routing.mergeMethod`, `mergeWeight`, `mergeDensity`, `mergeRank`), in the
 * route stage and in `trace compare` alike.
 */
export function routingMergeSettings(config: ResolvedPipelineConfig): MergeSettings {
  const routing = config.routing;
  return { method: routing.mergeMethod, weight: routing.mergeWeight, density: routing.mergeDensity, rank: routing.mergeRank };
}

/** A merge's method as logs and notes name it: "linear" or "TIES". */
export function mergeMethodLabel(settings: MergeSettings): string {
  return settings.method === "linear" ? "linear" : "TIES";
}

/**
 * How a merge of `count` adapters weighs each one, for logs and notes: "each weighted 1" or, unset, "each weighted
 * 1/n"; then its TIES density and its rank when set (the method: `mergeMethodLabel`).
 */
export function describeMerge(settings: MergeSettings, count: number): string {
  const parts = [`each weighted ${settings.weight ?? `1/${count}`}`];
  if (settings.density !== undefined) parts.push(`density ${settings.density}`);
  if (settings.rank !== undefined) parts.push(`rank ${settings.rank}`);
  return parts.join(", ");
}

/**
 * What a saved merge was made of (`merge.json` beside the adapter): its sources' served names, each one's weight (null:
 * 1/n), the merged rank (null: the sum of the sources' ranks), the method and the TIES density (null: the worker's);
 * fields absent in a record saved before they were settings read as their defaults.
 */
const mergeRecordSchema = z.strictObject({
  sources: z.array(z.string()),
  weight: z.number().nullable(),
  rank: z.number().int().positive().nullable().default(null),
  method: z.enum(["ties", "linear"]).default("ties"),
  density: z.number().nullable().default(null),
});
type MergeRecord = z.infer<typeof mergeRecordSchema>;

/** The file recording what the merge in `adapterPath` was made of. */
function mergeRecordFile(adapterPath: string): string {
  return path.join(adapterPath, "merge.json");
}

/** How a saved merge differs from the one asked for, one phrase per setting (empty: the same merge). */
function mergeDifferences(recorded: MergeRecord, asked: MergeRecord): string[] {
  const weight = (record: MergeRecord) => (record.weight === null ? "1/n" : String(record.weight));
  const rank = (record: MergeRecord) => (record.rank === null ? "the sources' sum" : String(record.rank));
  const density = (record: MergeRecord) => (record.density === null ? "the worker's" : String(record.density));
  return [
    ...(recorded.method === asked.method ? [] : [`method ${recorded.method} → ${asked.method}`]),
    ...(recorded.weight === asked.weight ? [] : [`weight ${weight(recorded)} → ${weight(asked)}`]),
    ...(recorded.density === asked.density ? [] : [`density ${density(recorded)} → ${density(asked)}`]),
    ...(recorded.rank === asked.rank ? [] : [`rank ${rank(recorded)} → ${rank(asked)}`]),
    ...(JSON.stringify(recorded.sources) === JSON.stringify(asked.sources) ? [] : [`sources ${recorded.sources.join(", ")} → ${asked.sources.join(", ")}`]),
  ];
}

/** A saved merge of other sources or other settings than the configuration now asks for. */
export class MergedAdapterMismatchError extends TraceError {
  override readonly name = "MergedAdapterMismatchError";
  constructor(
    readonly adapterPath: string,
    readonly recorded: MergeRecord,
    readonly asked: MergeRecord,
  ) {
    super(`${adapterPath} holds a merge of other settings (${mergeDifferences(recorded, asked).join("; ")}); delete that directory to merge again, or use another run directory`, { category: "usage" });
  }
}

/**
 * Merges `sources` on the worker (`merge_adapters`; TIES unless `settings.method` is linear; each source weighted
 * `settings.weight`, else the worker's 1/n; TIES at `settings.density`, else the worker's; at `settings.rank`, else the
 * sum of the sources' ranks) and saves the result to `adapterPath` with what it was made of (`merge.json`), to be served
 * from there as any adapter. Nothing is done when that directory already holds the same merge (a resumed run); one of
 * other sources or settings is refused (`MergedAdapterMismatchError`). Returns what the worker reported about the
 * merge, or null when it was there already.
 */
export async function mergeAdaptersInto(
  context: PipelineContext,
  name: string,
  sources: readonly { model: string; adapterPath: string }[],
  adapterPath: string,
  settings: MergeSettings = {},
): Promise<MergedAdapter | null> {
  const { weight, rank, density } = settings;
  const method = settings.method ?? "ties";
  const asked: MergeRecord = { sources: sources.map((source) => source.model), weight: weight ?? null, rank: rank ?? null, method, density: density ?? null };
  if (existsSync(path.join(adapterPath, "adapter_config.json"))) {
    // A merge saved before the record existed is taken as it is.
    if (!existsSync(mergeRecordFile(adapterPath))) return null;
    const recorded = readJsonArtifact(mergeRecordFile(adapterPath), mergeRecordSchema);
    if (mergeDifferences(recorded, asked).length > 0) throw new MergedAdapterMismatchError(adapterPath, recorded, asked);
    return null;
  }
  await ensureAdaptersServed(context, sources);
  const trainer = (await context.worker()).trainerClient();
  if ((await trainer.listAdapters()).some((held) => held.name === name)) await trainer.deleteAdapter(name);
  const weights = weight === undefined ? {} : { weights: sources.map(() => weight) };
  const merged = await trainer.mergeAdapters({ name, sources: asked.sources, method, ...weights, ...(density === undefined ? {} : { density }), ...(rank === undefined ? {} : { rank }) });
  await trainer.saveAdapter({ adapter: name, path: adapterPath });
  writeJsonArtifact(mergeRecordFile(adapterPath), asked);
  return merged;
}
