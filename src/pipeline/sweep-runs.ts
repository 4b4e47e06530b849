/**
 * Sweeps: several `trace run`s of one configuration, each with a patch deep-merged into it, as the device scripts
 * (`scripts/mini-v2-base.sh`) start them side by side — a JSON list of
 * `{"name", "config"?, "patch"?, "until"?, "from"?, "after"?}`. A run "from" another starts from that run's
 * configuration (its patch included) and applies its own patch on top; a run "after" another starts once that one is
 * done (for example on the base it trained, `model.path` `runs/mini-v2-NAME/model`). Checking a sweep here, against the
 * pipeline's own configuration schema, catches a misspelt field or a dangling "from" or "after" before a device call is
 * spent on it.
 */
import { z } from "zod";
import { readJsonFile } from "../envs/core/read-json-file.js";
import { TraceError } from "../spec/trace-error.js";
import { parsePipelineConfig, type ResolvedPipelineConfig } from "./pipeline-config.js";
import { PIPELINE_STAGES } from "./run-pipeline.js";

/** A sweep that is not a list of well-formed runs, or whose runs do not resolve to valid configurations; `value` is the offending part. */
export class SweepError extends TraceError {
  override readonly name = "SweepError";
  constructor(
    message: string,
    readonly value: unknown,
  ) {
    super(message, { category: "usage" });
  }
}

const sweepRunSchema = z
  .object({
    /** Names the run directory (`runs/mini-v2-NAME`) and the files that come back, so letters, digits, `_` and `-` only. */
    name: z.string().regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '_' and '-' only"),
    /** The configuration file the patch applies to (default: the sweep's). */
    config: z.string().min(1).optional(),
    patch: z.record(z.string(), z.unknown()).optional(),
    /** The last stage to run, or "" for every stage (default: the script's). */
    until: z.union([z.literal(""), z.enum(PIPELINE_STAGES)]).optional(),
    /** A paired variant of the named run, started on a copy of its run directory once it is done. */
    from: z.string().min(1).optional(),
    /** A run started once the named run is done, in its own run directory. */
    after: z.string().min(1).optional(),
  })
  .strict();

/** One run of a sweep. */
export type SweepRun = z.infer<typeof sweepRunSchema>;

/** Validates a parsed sweep: a non-empty list of runs with unique names, each "from" and "after" naming another run, no cycles. */
export function parseSweepRuns(value: unknown, source: string): SweepRun[] {
  const result = z.array(sweepRunSchema).min(1).safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new SweepError(`${source}: ${issue.path.length === 0 ? "(top level)" : issue.path.join(".")}: ${issue.message}`, value);
  }
  const runs = result.data;
  const names = new Set<string>();
  for (const run of runs) {
    if (names.has(run.name)) throw new SweepError(`${source}: run name ${JSON.stringify(run.name)} is used twice`, run.name);
    names.add(run.name);
  }
  // Each run waits for the runs it is "from" or "after": a chain that comes back to its start would wait forever.
  const waitsFor = (run: SweepRun) => (["from", "after"] as const).flatMap((field) => (run[field] === undefined ? [] : [{ field, name: run[field] }]));
  for (const run of runs) {
    for (const { field, name } of waitsFor(run)) {
      if (!names.has(name)) throw new SweepError(`${source}: run ${JSON.stringify(run.name)} is "${field}" ${JSON.stringify(name)}, which is not a run of the sweep`, name);
    }
  }
  const visit = (run: SweepRun, path: string[]): void => {
    for (const { field, name } of waitsFor(run)) {
      if (path.includes(name)) throw new SweepError(`${source}: run ${JSON.stringify(name)} is "${field}" itself through ${[...path.slice(path.indexOf(name)), name].join(" → ")}`, name);
      visit(runs.find((other) => other.name === name)!, [...path, name]);
    }
  };
  for (const run of runs) visit(run, [run.name]);
  return runs;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * `base` with `patch` deep-merged into it (a new object; neither argument changes): objects merge key by key, anything
 * else in the patch (arrays, scalars, null) replaces what was there.
 */
export function mergeConfigPatch(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = merged[key];
    merged[key] = isPlainObject(value) && isPlainObject(current) ? mergeConfigPatch(current, value) : value;
  }
  return merged;
}

/**
 * The configuration run `name` of the sweep runs with, unvalidated: its base configuration (the run's `config`, else
 * `defaultConfig`; or, for a run "from" another, that run's resolved configuration) with its patch merged in.
 */
export function resolveSweepConfig(runs: readonly SweepRun[], name: string, defaultConfig: string, readConfig: (file: string) => unknown = readJson): Record<string, unknown> {
  const run = runs.find((candidate) => candidate.name === name);
  if (run === undefined) throw new SweepError(`no run named ${JSON.stringify(name)} in the sweep (${runs.map((candidate) => candidate.name).join(", ")})`, name);
  const base = run.from === undefined ? readConfig(run.config ?? defaultConfig) : resolveSweepConfig(runs, run.from, defaultConfig, readConfig);
  if (!isPlainObject(base)) throw new SweepError(`${run.config ?? defaultConfig}: a configuration is a JSON object`, base);
  return mergeConfigPatch(base, run.patch ?? {});
}

/** A configuration file read as a JSON object; a missing file or bad JSON is a `DataFileError` naming it. */
function readJson(file: string): unknown {
  return readJsonFile(file, z.record(z.string(), z.unknown()));
}

/**
 * The runs a device call is asked to archive checkpoints of (TRACE_KEEP_MODELS, names separated by blanks), each a run
 * of the sweep: a name that is not one would come back as no file at all, after the whole call.
 */
export function checkKeptModels(runs: readonly SweepRun[], names: string): string[] {
  const kept = names.split(/\s+/).filter((name) => name !== "");
  const known = new Set(runs.map((run) => run.name));
  const unknown = kept.find((name) => !known.has(name));
  if (unknown !== undefined) throw new SweepError(`TRACE_KEEP_MODELS: ${JSON.stringify(unknown)} is not a run of the sweep (${[...known].join(", ")})`, unknown);
  return kept;
}

/** Every run of the sweep resolved and validated by the pipeline's own schema; the first invalid one is named with its fields. */
export function checkSweep(runs: readonly SweepRun[], defaultConfig: string, readConfig: (file: string) => unknown = readJson): Map<string, ResolvedPipelineConfig> {
  const checked = new Map<string, ResolvedPipelineConfig>();
  for (const run of runs) checked.set(run.name, parsePipelineConfig(resolveSweepConfig(runs, run.name, defaultConfig, readConfig), `sweep run ${run.name}`));
  return checked;
}
