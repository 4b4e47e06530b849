/**
 * A typed client for the worker's trainer API (`/v1/trainer/…`), its sampler admin calls (`/v1/models`,
 * `/v1/load_lora_adapter`, `/v1/unload_lora_adapter`) and `GET /health` (worker/PROTOCOL.md). Responses are checked
 * with zod. Calls are never retried: `forward_backward` accumulates gradients, so a repeat would not be harmless.
 */
import type { z } from "zod";
import {
  adapterListSchema,
  anyObjectSchema,
  createdAdapterSchema,
  forwardBackwardSchema,
  forwardSchema,
  healthSchema,
  mergedAdapterSchema,
  mergedCheckpointSchema,
  modelListSchema,
  optimStepSchema,
} from "./trainer-response-schemas.js";
import type {
  AdapterInfo,
  CreateAdapterOptions,
  CreatedAdapter,
  Datum,
  ForwardBackwardRequest,
  ForwardBackwardResult,
  ForwardRequest,
  MergeAdaptersOptions,
  MergedAdapter,
  MergedCheckpoint,
  OptimStepOptions,
  OptimStepResult,
  ServedModel,
  WorkerHealth,
} from "./trainer-types.js";
import { createChatTokenizeClient, type ChatTokenize } from "../models/chat-tokenize-client.js";
import { WorkerConnectionError } from "./worker-connection-error.js";
import { WorkerRequestError } from "./worker-request-error.js";
import { WorkerResponseError } from "./worker-response-error.js";
import { WorkerTimeoutError } from "./worker-timeout-error.js";

export interface TrainerClientOptions {
  /** Up to and including the API version, e.g. `http://127.0.0.1:8765/v1` (what the chat client takes too). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
  /** Per request, covering the whole response body (default 600 000: a large `forward_backward` takes a while). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** Per-call overrides. */
export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** An adapter and the directory it is written to or read from (on the worker's file system). */
export interface AdapterPath {
  adapter: string;
  path: string;
}

export interface TrainerClient {
  /** The `…/v1` URL this client talks to. */
  readonly baseUrl: string;
  /** `GET /health` (no bearer token needed). */
  health(options?: RequestOptions): Promise<WorkerHealth>;
  /** `GET /v1/models`: the base model first, then every adapter (created or loaded). */
  listModels(options?: RequestOptions): Promise<ServedModel[]>;
  /** Loads a PEFT adapter directory for sampling and further training (vLLM's call). */
  loadLoraAdapter(adapter: { loraName: string; loraPath: string }, options?: RequestOptions): Promise<void>;
  unloadLoraAdapter(adapter: { loraName: string }, options?: RequestOptions): Promise<void>;
  createAdapter(adapter: CreateAdapterOptions, options?: RequestOptions): Promise<CreatedAdapter>;
  deleteAdapter(name: string, options?: RequestOptions): Promise<void>;
  /** A new adapter from the linear or TIES merge of existing ones (consolidation baselines). */
  mergeAdapters(merge: MergeAdaptersOptions, options?: RequestOptions): Promise<MergedAdapter>;
  listAdapters(options?: RequestOptions): Promise<AdapterInfo[]>;
  /** Token ids of a conversation rendered with the worker's chat template and generation prompt (`POST /v1/tokenize`). */
  tokenizeChat: ChatTokenize;
  /** The policy's logprob of every target token, per datum; no gradients. */
  forward(request: ForwardRequest, options?: RequestOptions): Promise<number[][]>;
  /** Accumulates the loss's gradients on the adapter until the next `optimStep`. */
  forwardBackward(request: ForwardBackwardRequest, options?: RequestOptions): Promise<ForwardBackwardResult>;
  optimStep(step: OptimStepOptions, options?: RequestOptions): Promise<OptimStepResult>;
  /**
   * Writes `adapter_config.json` + `adapter_model.safetensors` into `path`: PEFT's layout, or with `layout:
   * "per_expert"` MoE expert adapters split per expert and projection, as vLLM reads them (the same files otherwise).
   */
  saveAdapter(target: AdapterPath & { layout?: "peft" | "per_expert" }, options?: RequestOptions): Promise<void>;
  /** Writes the adapter plus its optimizer state and step into `path`. */
  saveState(target: AdapterPath, options?: RequestOptions): Promise<void>;
  /** Restores what `saveState` wrote, creating the adapter if the worker lacks it. */
  loadState(target: AdapterPath, options?: RequestOptions): Promise<void>;
  /**
   * Writes the base model with the adapter merged in as a complete checkpoint directory at `path` (absent or empty;
   * written atomically), usable as a new base (`serve --model path`). The worker keeps serving the unmerged base.
   */
  exportMerged(target: AdapterPath, options?: RequestOptions): Promise<MergedCheckpoint>;
}

/** A datum in the wire's snake_case; optional series are left out when absent. */
function datumToWire(datum: Datum): Record<string, number[]> {
  const wire: Record<string, number[]> = { tokens: datum.tokens, target_tokens: datum.targetTokens };
  if (datum.weights !== undefined) wire.weights = datum.weights;
  if (datum.samplingLogprobs !== undefined) wire.sampling_logprobs = datum.samplingLogprobs;
  if (datum.advantages !== undefined) wire.advantages = datum.advantages;
  return wire;
}

/** Leaves out fields whose value is undefined, so the worker applies its defaults. */
function defined(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

export function createTrainerClient(options: TrainerClientOptions): TrainerClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const healthUrl = new URL("/health", `${baseUrl}/`).toString();
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const defaultTimeoutMs = options.timeoutMs ?? 600_000;

  async function send(method: "GET" | "POST", url: string, body: unknown, call: RequestOptions, authorize = true): Promise<string> {
    const timeoutMs = call.timeoutMs ?? defaultTimeoutMs;
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (authorize && options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) throw new WorkerTimeoutError(method, url, timeoutMs, { cause: error });
      if (call.signal?.aborted) throw error;
      throw new WorkerConnectionError(method, url, { cause: error });
    }
    if (status < 200 || status >= 300) throw new WorkerRequestError(method, url, status, text);
    return text;
  }

  async function call<Schema extends z.ZodType>(
    method: "GET" | "POST",
    url: string,
    body: unknown,
    schema: Schema,
    callOptions: RequestOptions = {},
    authorize = true,
  ): Promise<z.output<Schema>> {
    const text = await send(method, url, body, callOptions, authorize);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new WorkerResponseError(method, url, [`body is not JSON: ${(error as Error).message}`], text, { cause: error });
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(body)"}: ${issue.message}`);
      throw new WorkerResponseError(method, url, problems, text, { cause: parsed.error });
    }
    return parsed.data;
  }

  const trainer = (name: string): string => `${baseUrl}/trainer/${name}`;
  const tokenizeChat = createChatTokenizeClient({ baseUrl, fetch: fetchImpl, ...(options.apiKey ? { apiKey: options.apiKey } : {}) });

  return {
    baseUrl,
    health: (callOptions) => call("GET", healthUrl, undefined, healthSchema, callOptions, false),
    listModels: (callOptions) => call("GET", `${baseUrl}/models`, undefined, modelListSchema, callOptions),
    async loadLoraAdapter(adapter, callOptions = {}) {
      await send("POST", `${baseUrl}/load_lora_adapter`, { lora_name: adapter.loraName, lora_path: adapter.loraPath }, callOptions);
    },
    async unloadLoraAdapter(adapter, callOptions = {}) {
      await send("POST", `${baseUrl}/unload_lora_adapter`, { lora_name: adapter.loraName }, callOptions);
    },
    createAdapter: (adapter, callOptions) =>
      call(
        "POST",
        trainer("create_adapter"),
        defined({
          name: adapter.name,
          rank: adapter.rank,
          alpha: adapter.alpha,
          dropout: adapter.dropout,
          target_modules: adapter.targetModules,
          seed: adapter.seed,
        }),
        createdAdapterSchema,
        callOptions,
      ),
    mergeAdapters: (merge, callOptions) =>
      call(
        "POST",
        trainer("merge_adapters"),
        defined({ name: merge.name, sources: merge.sources, weights: merge.weights, method: merge.method, density: merge.density, rank: merge.rank }),
        mergedAdapterSchema,
        callOptions,
      ),
    async deleteAdapter(name, callOptions) {
      await call("POST", trainer("delete_adapter"), { name }, anyObjectSchema, callOptions);
    },
    listAdapters: (callOptions) => call("GET", trainer("adapters"), undefined, adapterListSchema, callOptions),
    tokenizeChat,
    forward: (request, callOptions) =>
      call("POST", trainer("forward"), defined({ adapter: request.adapter, datums: request.datums.map(datumToWire) }), forwardSchema, callOptions),
    forwardBackward: (request, callOptions) =>
      call(
        "POST",
        trainer("forward_backward"),
        defined({
          adapter: request.adapter,
          loss: request.loss,
          loss_config: request.lossConfig === undefined ? undefined : defined({ clip_low: request.lossConfig.clipLow, clip_high: request.lossConfig.clipHigh }),
          datums: request.datums.map(datumToWire),
          return_logprobs: request.returnLogprobs,
        }),
        forwardBackwardSchema,
        callOptions,
      ),
    optimStep: (step, callOptions) =>
      call(
        "POST",
        trainer("optim_step"),
        defined({
          adapter: step.adapter,
          learning_rate: step.learningRate,
          beta1: step.beta1,
          beta2: step.beta2,
          eps: step.eps,
          weight_decay: step.weightDecay,
          max_grad_norm: step.maxGradNorm,
        }),
        optimStepSchema,
        callOptions,
      ),
    async saveAdapter(target, callOptions) {
      await call("POST", trainer("save_adapter"), { adapter: target.adapter, path: target.path, ...(target.layout === undefined ? {} : { layout: target.layout }) }, anyObjectSchema, callOptions);
    },
    async saveState(target, callOptions) {
      await call("POST", trainer("save_state"), { adapter: target.adapter, path: target.path }, anyObjectSchema, callOptions);
    },
    async loadState(target, callOptions) {
      await call("POST", trainer("load_state"), { adapter: target.adapter, path: target.path }, anyObjectSchema, callOptions);
    },
    exportMerged: (target, callOptions) =>
      call("POST", trainer("export_merged"), { adapter: target.adapter, path: target.path }, mergedCheckpointSchema, callOptions),
  };
}
