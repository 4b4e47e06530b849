/**
 * A run directory's `config.json`, read leniently in both shapes that write it: `trace rollout`'s manifest (one τ²
 * environment, `env` and `dataDir`) and `trace run`'s resolved pipeline configuration (`target.dataDirectory` with
 * `target.domains`). `trace export`, `trace synthesize` and `trace analyze` read runs of either kind through it.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { openRunDirectory } from "../run/run-directory.js";
import { UsageError } from "./usage-error.js";

/** What a run directory's `config.json` says about one τ² environment of it: the `trace rollout` manifest or `trace run`'s pipeline config. */
export interface RunManifest {
  /** The domain's data directory, when the config names one for this environment. */
  dataDirectory?: string;
  /** Why there is none, when there is none. */
  missing?: string;
  agent?: string;
  user?: string;
  maxSteps?: number;
  maxErrors?: number;
  trials?: number;
  seed?: number;
}

/** A config field read leniently: a missing or malformed value is undefined, never a failed parse. */
const lenientText = z.string().min(1).optional().catch(undefined);
const lenientInteger = z.int().optional().catch(undefined);
const lenientObject = <Shape extends z.ZodRawShape>(shape: Shape) => z.looseObject(shape).optional().catch(undefined);

/** `trace run`'s resolved pipeline config: τ²-bench's data/tau2 (`target.dataDirectory`) with one directory per domain. */
const pipelineConfigShape = z.looseObject({
  model: lenientObject({ servedModelName: lenientText }),
  target: z.looseObject({
    kind: lenientText,
    dataDirectory: lenientText,
    domains: z.array(z.string()).optional().catch(undefined),
    user: lenientText,
    maxSteps: lenientInteger,
    trials: lenientInteger,
    seed: lenientInteger,
  }),
});

/** `trace rollout`'s manifest (`RolloutConfig`): one domain directory for one environment. */
const rolloutConfigShape = z.looseObject({
  env: lenientText,
  dataDir: lenientText,
  agent: lenientObject({ model: lenientText }),
  user: lenientObject({ model: lenientText }),
  maxSteps: lenientInteger,
  maxErrors: lenientInteger,
  trials: lenientInteger,
  seed: lenientInteger,
});

/** Drops undefined fields (exactOptionalPropertyTypes). */
function defined<T extends object>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** RUN/config.json parsed (undefined when absent; not JSON is a one-line error). */
function readConfig(runDir: string): { file: string; config: unknown } | undefined {
  const file = openRunDirectory(runDir).configFile;
  if (!existsSync(file)) return undefined;
  try {
    return { file, config: JSON.parse(readFileSync(file, "utf8")) };
  } catch (error) {
    throw new UsageError(`${file}: not JSON (${(error as Error).message})`);
  }
}

/** Reads RUN/config.json in either shape for environment `env` (`tau2-<domain>`); fields it does not hold are undefined. */
export function readRunManifest(runDir: string, env: string, domain: string): RunManifest {
  const read = readConfig(runDir);
  if (read === undefined) return { missing: `${openRunDirectory(runDir).configFile} does not exist` };
  const { file, config } = read;
  const pipeline = pipelineConfigShape.safeParse(config);
  if (pipeline.success) {
    const { model, target } = pipeline.data;
    const found: RunManifest = defined({ agent: model?.servedModelName, user: target.user, maxSteps: target.maxSteps, trials: target.trials, seed: target.seed });
    if ((target.kind ?? "tau2") !== "tau2" || target.dataDirectory === undefined) found.missing = `${file} has no target.dataDirectory of τ²-bench data`;
    else if (target.domains !== undefined && !target.domains.includes(domain)) found.missing = `${file}: target.domains ${JSON.stringify(target.domains)} does not include ${domain}`;
    else found.dataDirectory = path.join(target.dataDirectory, domain);
    return found;
  }
  const manifest = rolloutConfigShape.safeParse(config);
  if (!manifest.success) return { missing: `${file} is neither a trace rollout nor a trace run config` };
  const { dataDir, env: configuredEnv, agent, user, maxSteps, maxErrors, trials, seed } = manifest.data;
  const found: RunManifest = defined({ agent: agent?.model, user: user?.model, maxSteps, maxErrors, trials, seed });
  if (dataDir === undefined) found.missing = `${file} has neither dataDir nor target.dataDirectory`;
  else if (configuredEnv !== undefined && configuredEnv !== env) found.missing = `${file} is for ${configuredEnv}, not ${env}`;
  else found.dataDirectory = dataDir;
  return found;
}

/** The τ² environments a run directory's `config.json` names (`tau2-airline`, …), in its order; empty when it names none. */
export function runEnvironments(runDir: string): string[] {
  const config = readConfig(runDir)?.config;
  const pipeline = pipelineConfigShape.safeParse(config);
  if (pipeline.success && (pipeline.data.target.kind ?? "tau2") === "tau2") return (pipeline.data.target.domains ?? ["airline", "retail"]).map((domain) => `tau2-${domain}`);
  const manifest = rolloutConfigShape.safeParse(config);
  return manifest.success && manifest.data.env !== undefined ? [manifest.data.env] : [];
}

/**
 * Where a run's τ² data is: `root` (τ²-bench's `data/tau2`, one directory per domain) for a `trace run` directory,
 * `domainDirectory` (one domain) for a `trace rollout` one.
 */
export function runDataDirectories(runDir: string): { root?: string; domainDirectory?: string } {
  const config = readConfig(runDir)?.config;
  const pipeline = pipelineConfigShape.safeParse(config);
  if (pipeline.success) return pipeline.data.target.dataDirectory === undefined ? {} : { root: pipeline.data.target.dataDirectory };
  const manifest = rolloutConfigShape.safeParse(config);
  return manifest.success && manifest.data.dataDir !== undefined ? { domainDirectory: manifest.data.dataDir } : {};
}
