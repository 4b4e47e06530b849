/** What every stage gets: the resolved configuration, a progress printer, and the worker (started on first use, stopped at the end). */
import { existsSync } from "node:fs";
import path from "node:path";
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import { openTrajectoryStore, type TrajectoryStore } from "../store/trajectory-store.js";
import { createTinyCheckpoint } from "../worker/tiny-checkpoint.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import { MissingCheckpointError } from "./missing-checkpoint-error.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";

export interface PipelineContext {
  readonly config: ResolvedPipelineConfig;
  /** Prints one progress line. */
  log(line: string): void;
  /** The worker serving the base model (created with `init-tiny` first when configured and missing). */
  worker(): Promise<WorkerProcess>;
  /** A chat client on the worker for `model` (default: the base model). */
  sampler(model?: string): Promise<ChatClient>;
  /** Opens a store file of the run (relative to the run directory); the caller closes it. */
  openStore(relativePath: string): TrajectoryStore;
  /** Stops the worker if it was started. */
  close(): Promise<void>;
}

/** A context whose worker starts lazily. */
export function createPipelineContext(config: ResolvedPipelineConfig, log: (line: string) => void): PipelineContext {
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
      extraArguments: config.worker.extraArguments,
      startupTimeoutMs: config.worker.startupTimeoutSeconds * 1000,
      ...(config.worker.python === undefined ? {} : { python: config.worker.python }),
    });
    log(`worker: serving ${model.servedModelName} at ${worker.baseUrl}`);
    return worker;
  };
  const worker = () => (started ??= start());
  return {
    config,
    log,
    worker,
    async sampler(model = config.model.servedModelName) {
      const { baseUrl } = await worker();
      let client = clients.get(model);
      if (client === undefined) {
        client = createChatClient({ baseUrl, model, maxRetries: 1, maxConcurrency: 16, timeoutMs: 600_000 });
        clients.set(model, client);
      }
      return client;
    },
    openStore: (relativePath) => openTrajectoryStore(path.join(config.runDirectory, relativePath)),
    async close() {
      if (started !== undefined) await (await started.catch(() => undefined))?.stop();
    },
  };
}
