/**
 * Adapter sync: how the trainer's updated weights reach the sampler. With the worker as sampler the adapter is sampled
 * directly; with a separate vLLM-style sampler the adapter is saved and loaded under a versioned name
 * (`<adapter>-v<step>`), and older versions are unloaded. After every sync a probe compares sampler and trainer logprobs.
 */
import path from "node:path";
import type { TrainerClient } from "../worker/trainer-client.js";
import { probeLogprobs, type LogprobProbeOptions, type ProbeConversation } from "./logprob-probe.js";

/** The result of a sync: the name to sample, and the probe's max logprob difference (null when not probed). */
export interface SyncedAdapter {
  model: string;
  probeDifference: number | null;
}

/** Makes the trainer's current adapter weights sampleable. */
export interface AdapterSync {
  /**
   * Called once before the first rollouts and after every optimizer step, with the adapter's step count and, after a
   * step, prefixes of the rollouts the step trained on (`probeConversations`) for a sync that probes on them.
   * `createAdapterSync` does not: its probe reads its own conversation ("Say hello."), which caught a stale sampler
   * more often and never fired in sync, where the rollouts' long prompts, batched, did (`npm run bench:probe`;
   * docs/environments-and-training.md).
   */
  sync(step: number, probeConversations?: readonly ProbeConversation[]): Promise<SyncedAdapter>;
}

/** A separate sampler that loads PEFT adapters by name (vLLM with `--enable-lora`, or another worker). */
export interface LoraSampler {
  loadLoraAdapter: TrainerClient["loadLoraAdapter"];
  unloadLoraAdapter: TrainerClient["unloadLoraAdapter"];
}

export interface AdapterSyncOptions {
  trainer: TrainerClient;
  /** The trainer's adapter name. */
  adapter: string;
  /** A separate sampler, and where versions are saved (a path both can read); absent: the worker samples the adapter. */
  sampler?: { client: LoraSampler; directory: string };
  /** The check after every sync; false skips it. */
  probe: LogprobProbeOptions | false;
}

/** The versioned sampler name of a step. */
function versionedAdapterName(adapter: string, step: number): string {
  return `${adapter}-v${step}`;
}

/** The sync for the worker as sampler, or for a separate sampler when `sampler` is given. */
export function createAdapterSync(options: AdapterSyncOptions): AdapterSync {
  const { trainer, adapter, sampler, probe } = options;
  let loaded: string | undefined;
  const check = async (model: string) => (probe === false ? null : probeLogprobs({ ...probe, trainer, adapter, model }));
  return {
    async sync(step) {
      if (sampler === undefined) return { model: adapter, probeDifference: await check(adapter) };
      const model = versionedAdapterName(adapter, step);
      if (model !== loaded) {
        const loraPath = path.join(sampler.directory, model);
        // vLLM reads MoE expert adapters split per expert by default (the same files as PEFT's layout for a dense model).
        await trainer.saveAdapter({ adapter, path: loraPath, layout: "per_expert" });
        await sampler.client.loadLoraAdapter({ loraName: model, loraPath });
        if (loaded !== undefined) await sampler.client.unloadLoraAdapter({ loraName: loaded });
        loaded = model;
      }
      return { model, probeDifference: await check(model) };
    },
  };
}
