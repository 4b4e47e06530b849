/**
 * Makes adapters samplable on the run's policy sampler — the worker, or the external sampler of the `policy` role —
 * loading each from its directory unless the sampler already serves it.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type { MergedAdapter } from "../worker/trainer-types.js";
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
 * Merges `sources` TIES-style on the worker (`merge_adapters`; each source weighted `weight`, else the worker's 1/n)
 * and saves the result to `adapterPath`, to be served
 * from there as any adapter; nothing is done when that directory already holds an adapter (a resumed run). Returns
 * what the worker reported about the merge, or null when it was there already.
 */
export async function mergeAdaptersInto(
  context: PipelineContext,
  name: string,
  sources: readonly { model: string; adapterPath: string }[],
  adapterPath: string,
  weight?: number,
): Promise<MergedAdapter | null> {
  if (existsSync(path.join(adapterPath, "adapter_config.json"))) return null;
  await ensureAdaptersServed(context, sources);
  const trainer = (await context.worker()).trainerClient();
  if ((await trainer.listAdapters()).some((held) => held.name === name)) await trainer.deleteAdapter(name);
  const weights = weight === undefined ? {} : { weights: sources.map(() => weight) };
  const merged = await trainer.mergeAdapters({ name, sources: sources.map((source) => source.model), method: "ties", ...weights });
  await trainer.saveAdapter({ adapter: name, path: adapterPath });
  return merged;
}
