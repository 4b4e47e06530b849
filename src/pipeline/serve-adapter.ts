/**
 * Makes adapters samplable on the run's policy sampler — the worker, or the external sampler of the `policy` role —
 * loading each from its directory unless the sampler already serves it.
 */
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
