/** zod schemas of the worker's JSON responses (PROTOCOL.md), mapped to the client's camelCase types. Unknown fields are ignored. */
import { z } from "zod";
import type {
  AdapterInfo,
  CreatedAdapter,
  ForwardBackwardResult,
  MergedAdapter,
  MergedCheckpoint,
  OptimStepResult,
  ServedModel,
  WorkerHealth,
} from "./trainer-types.js";

const count = z.number().int().nonnegative();
/** A metric the worker reports as null (or leaves out) when it does not apply. */
const optionalMetric = z
  .number()
  .nullish()
  .transform((value) => value ?? null);

/** A number the worker sends as null when it is not finite (a diverged step's loss or gradient norm): NaN here. */
const finiteOrNaN = z
  .number()
  .nullable()
  .transform((value) => value ?? Number.NaN);

export const healthSchema = z
  .object({
    status: z.literal("ok"),
    model: z.string(),
    device: z.string(),
    dtype: z.string(),
    world_size: count,
    deterministic: z.boolean().default(false),
    accelerator: z.string().optional(),
    versions: z.record(z.string(), z.string()).optional(),
  })
  .transform(
    (body): WorkerHealth => ({
      status: body.status,
      model: body.model,
      device: body.device,
      dtype: body.dtype,
      worldSize: body.world_size,
      deterministic: body.deterministic,
      ...(body.accelerator === undefined ? {} : { accelerator: body.accelerator }),
      ...(body.versions === undefined ? {} : { versions: body.versions }),
    }),
  );

/** One line naming the machine behind a run's figures, e.g. `NVIDIA H100 80GB HBM3 (cuda:0, bfloat16); torch 2.11.0, transformers 5.17.0, peft 0.21.0; deterministic training off`. */
export function describeWorkerMachine(health: WorkerHealth): string {
  const where = `${health.accelerator ?? "unnamed accelerator"}${health.worldSize > 1 ? ` × ${health.worldSize}` : ""} (${health.device}, ${health.dtype})`;
  const libraries = ["torch", "transformers", "peft"].filter((name) => health.versions?.[name] !== undefined).map((name) => `${name} ${health.versions![name]}`);
  return [where, ...(libraries.length > 0 ? [libraries.join(", ")] : []), `deterministic training ${health.deterministic ? "on" : "off"}`].join("; ");
}

export const modelListSchema = z
  .object({ data: z.array(z.object({ id: z.string(), root: z.string().nullish(), parent: z.string().nullish() })) })
  .transform((body): ServedModel[] => body.data.map((entry) => ({ id: entry.id, root: entry.root ?? entry.id, parent: entry.parent ?? null })));

export const createdAdapterSchema = z
  .object({ name: z.string(), trainable_parameters: count, target_modules: z.array(z.string()) })
  .transform((body): CreatedAdapter => ({ name: body.name, trainableParameters: body.trainable_parameters, targetModules: body.target_modules }));

export const adapterListSchema = z
  .object({
    adapters: z.array(
      z.object({
        name: z.string(),
        rank: count,
        alpha: z.number(),
        target_modules: z.array(z.string()),
        step: count,
        trainable_parameters: count,
        source: z.enum(["created", "loaded"]),
      }),
    ),
  })
  .transform((body): AdapterInfo[] =>
    body.adapters.map((entry) => ({
      name: entry.name,
      rank: entry.rank,
      alpha: entry.alpha,
      targetModules: entry.target_modules,
      step: entry.step,
      trainableParameters: entry.trainable_parameters,
      source: entry.source,
    })),
  );

const logprobsPerDatum = z.array(z.array(z.number()));

export const forwardSchema = z.object({ logprobs: logprobsPerDatum }).transform((body) => body.logprobs);

export const forwardBackwardSchema = z
  .object({
    loss: finiteOrNaN,
    tokens: z.number().nonnegative(),
    metrics: z.object({
      loss_sum: finiteOrNaN,
      clip_fraction: optionalMetric,
      approx_kl: optionalMetric,
      entropy: finiteOrNaN,
      mean_ratio: optionalMetric,
    }),
    logprobs: logprobsPerDatum.optional(),
  })
  .transform(
    (body): ForwardBackwardResult => ({
      loss: body.loss,
      tokens: body.tokens,
      metrics: {
        lossSum: body.metrics.loss_sum,
        clipFraction: body.metrics.clip_fraction,
        approxKl: body.metrics.approx_kl,
        entropy: body.metrics.entropy,
        meanRatio: body.metrics.mean_ratio,
      },
      ...(body.logprobs === undefined ? {} : { logprobs: body.logprobs }),
    }),
  );

export const optimStepSchema = z
  .object({ step: count, grad_norm: finiteOrNaN })
  .transform((body): OptimStepResult => ({ step: body.step, gradNorm: body.grad_norm }));

/** Any JSON object: calls whose answer the protocol leaves open (delete, save, load). */
export const anyObjectSchema = z.record(z.string(), z.unknown());

export const mergedAdapterSchema = z
  .object({
    name: z.string(),
    method: z.enum(["linear", "ties"]),
    rank: count,
    modules: count,
    target_modules: z.array(z.string()),
    max_relative_error: z.number(),
    mean_relative_error: z.number(),
  })
  .transform(
    (body): MergedAdapter => ({
      name: body.name,
      method: body.method,
      rank: body.rank,
      modules: body.modules,
      targetModules: body.target_modules,
      maxRelativeError: body.max_relative_error,
      meanRelativeError: body.mean_relative_error,
    }),
  );

export const mergedCheckpointSchema = z
  .object({ path: z.string().min(1), merged_modules: count })
  .transform((body): MergedCheckpoint => ({ path: body.path, mergedModules: body.merged_modules }));
