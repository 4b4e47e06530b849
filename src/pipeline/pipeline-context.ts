/** What every stage gets: the resolved configuration, a progress printer, and the worker (started on first use, stopped at the end). */
import { existsSync } from "node:fs";
import path from "node:path";
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import { openTrajectoryStore, type TrajectoryStore } from "../store/trajectory-store.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";
import { createAdapterSync, type AdapterSync, type LoraSampler } from "../training/adapter-sync.js";
import { createTrainerClient, type TrainerClient } from "../worker/trainer-client.js";
import { describeWorkerMachine } from "../worker/trainer-response-schemas.js";
import { createTinyCheckpoint } from "../worker/tiny-checkpoint.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import { endpointClient, roleEndpoint, type ResolvedEndpoint } from "./endpoints.js";
import type { CapabilityEnvironmentEntry } from "../run/environment-index.js";
import { openRunDirectory, type RunDirectory } from "../run/run-directory.js";
import { createEnvironmentCache } from "./environment-loader.js";
import { MissingCheckpointError } from "./missing-checkpoint-error.js";
import { closeTargetDomains } from "./target-tasks.js";
import { workerServeArguments, type ResolvedPipelineConfig } from "./pipeline-config.js";

/**
 * Requests one model's client keeps in flight to the run's worker: the worker's default `--max-batch-size`, so a
 * rollout's concurrency (not the client) sets how many rows decode together (on 2 CPU cores a decode step at batch 32
 * costs 1.4x one at batch 16 for twice the tokens).
 */
const WORKER_REQUESTS_IN_FLIGHT = 64;

export interface PipelineContext {
  readonly config: ResolvedPipelineConfig;
  /** The run directory (`config.runDirectory`): every artifact's path, reader and writer. */
  readonly run: RunDirectory;
  /** Prints one progress line. */
  log(line: string): void;
  /** The worker serving the base model (created with `init-tiny` first when configured and missing). */
  worker(): Promise<WorkerProcess>;
  /**
   * A chat client on the policy sampler for `model` (default: the base model): the worker, or the `policy` role's
   * endpoint, where the base model is called by the endpoint's model name and adapters by their names.
   */
  sampler(model?: string): Promise<ChatClient>;
  /** The `policy` role's endpoint when it is not the worker (the worker then only trains). */
  readonly externalPolicy: ResolvedEndpoint | undefined;
  /** The external policy sampler's adapter loading (`/v1/load_lora_adapter`); undefined when the worker samples. */
  loraSampler(): (LoraSampler & Pick<TrainerClient, "listModels">) | undefined;
  /**
   * How GRPO's adapter reaches the policy sampler: undefined when the worker samples (it samples the trainer's adapter
   * directly); with an external sampler, versions saved under `adapters/synced/` and loaded by name, checked by the
   * logprob probe after every sync.
   */
  adapterSync(adapter: string): Promise<AdapterSync | undefined>;
  /** A capability environment's module (hand-written natively, generated in the sandbox), loaded once per run. */
  environment(entry: CapabilityEnvironmentEntry): Promise<ModuleRunner>;
  /** Opens a store file of the run (`run.storeFile`, `run.evaluationStoreFile`, …); the caller closes it. */
  openStore(file: string): TrajectoryStore;
  /**
   * One line naming the machine behind the run's figures (the worker's accelerator, dtype, library versions and
   * deterministic mode; `describeWorkerMachine`), when the worker has started; undefined otherwise.
   */
  machine(): Promise<string | undefined>;
  /** Stops the worker if it was started. */
  close(): Promise<void>;
}

/** A context whose worker starts lazily; closing it stops the worker and (unless `closesTargets` is false) the user targets' servers. */
export function createPipelineContext(config: ResolvedPipelineConfig, log: (line: string) => void, options: { closesTargets?: boolean } = {}): PipelineContext {
  let started: Promise<WorkerProcess> | undefined;
  const clients = new Map<string, ChatClient>();
  const start = async (): Promise<WorkerProcess> => {
    const { model } = config;
    if (!existsSync(path.join(model.path, "config.json"))) {
      if (model.initTiny === undefined) throw new MissingCheckpointError(model.path);
      log(`model: creating a tiny random checkpoint in ${model.path}`);
      await createTinyCheckpoint(model.path, model.initTiny, config.worker.python === undefined ? {} : { python: config.worker.python });
    }
    log(`worker: starting on ${model.path}`);
    const worker = await startWorker({
      model: model.path,
      servedModelName: model.servedModelName,
      extraArguments: workerServeArguments(config.worker),
    gpus: config.worker.gpus,
      startupTimeoutMs: config.worker.startupTimeoutSeconds * 1000,
      // Every adapter, state and checkpoint the run's worker writes or reads lies in the run directory.
      fileRoot: config.runDirectory,
      ...(config.worker.python === undefined ? {} : { python: config.worker.python }),
    });
    log(`worker: serving ${model.servedModelName} at ${worker.baseUrl}`);
    return worker;
  };
  const worker = () => (started ??= start());
  const externalPolicy = roleEndpoint(config, "policy");
  const run = openRunDirectory(config.runDirectory);
  const environments = createEnvironmentCache(run);
  return {
    config,
    run,
    log,
    worker,
    externalPolicy,
    async sampler(model = config.model.servedModelName) {
      let client = clients.get(model);
      if (client === undefined) {
        if (externalPolicy === undefined) {
          const { baseUrl, apiKey } = await worker();
          client = createChatClient({ baseUrl, model, maxRetries: 1, maxConcurrency: WORKER_REQUESTS_IN_FLIGHT, timeoutMs: 600_000, ...(apiKey === undefined ? {} : { apiKey }) });
        } else {
          client = endpointClient(externalPolicy, { model: model === config.model.servedModelName ? externalPolicy.model : model });
        }
        clients.set(model, client);
      }
      return client;
    },
    async adapterSync(adapter) {
      const client = this.loraSampler();
      if (client === undefined) return undefined;
      const trainer = (await worker()).trainerClient();
      return createAdapterSync({ trainer, adapter, sampler: { client, directory: run.syncedAdaptersDirectory }, probe: { chat: await this.sampler() } });
    },
    loraSampler: () => (externalPolicy === undefined ? undefined : createTrainerClient({ baseUrl: externalPolicy.url, ...(externalPolicy.apiKey === undefined ? {} : { apiKey: externalPolicy.apiKey }) })),
    environment: (entry) => environments.load(entry),
    openStore: (file) => openTrajectoryStore(file),
    async machine() {
      // Only a worker that runs already (describing the machine never starts one), from the /health it gave at startup.
      const running = started === undefined ? undefined : await started.catch(() => undefined);
      return running === undefined ? undefined : describeWorkerMachine(running.health);
    },
    async close() {
      await environments.close();
      // A seed's context (compare) shares the run's targets: only the run's own context stops an MCP server.
      if (options.closesTargets ?? true) await closeTargetDomains();
      if (started !== undefined) await (await started.catch(() => undefined))?.stop();
    },
  };
}
