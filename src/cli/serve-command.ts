/** `trace serve RUN`: a finished run's routed agent behind an OpenAI-compatible `/v1/chat/completions`, until SIGINT / SIGTERM. */
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import type { Command } from "commander";
import { createPipelineContext, type PipelineContext } from "../pipeline/pipeline-context.js";
import { loadPipelineConfig } from "../pipeline/pipeline-config.js";
import { createRunRouter, routedAdapters } from "../pipeline/route-stage.js";
import { ensureAdaptersServed } from "../pipeline/serve-adapter.js";
import { openRunDirectory } from "../run/run-directory.js";
import { createRoutedChatServer, type UpstreamServer } from "../serving/routed-chat-server.js";
import { RunNotServableError } from "../serving/run-not-servable-error.js";
import { integerOption } from "./integer-option.js";
import { UsageError } from "./usage-error.js";
import { addRunDirectoryArgument } from "./run-directory-option.js";

/** Where `trace serve` listens unless told otherwise. */
const DEFAULT_SERVE_PORT = 8080;

/** Where `serveRun` listens and where its progress goes. */
export interface ServeRunOptions {
  port: number;
  host: string;
  /** Progress lines (the worker starting, …). */
  log: (line: string) => void;
}

/** A run being served. */
export interface ServingRun {
  /** The OpenAI base URL, e.g. `http://127.0.0.1:8080/v1`. */
  url: string;
  /** The one model `/v1/models` lists (the run's name). */
  servedModelName: string;
  /** Each routing option as `label=adapter` (`label=base` for "none of these"). */
  routes: string[];
  /** Settles if the upstream sampler goes away while serving. */
  upstreamGone: Promise<string>;
  /** Stops the server, then the worker. */
  close(): Promise<void>;
}

/** The OpenAI-compatible server that answers routed requests: the `policy` role's external sampler, else the run's worker. */
async function upstreamOf(context: PipelineContext): Promise<UpstreamServer & { gone: Promise<string> }> {
  const external = context.externalPolicy;
  if (external !== undefined) return { baseUrl: external.url, ...(external.apiKey === undefined ? {} : { apiKey: external.apiKey }), gone: new Promise<string>(() => undefined) };
  const worker = await context.worker();
  const gone = worker.exited.then((exit) => `the worker exited (${exit.signal === null ? `exit code ${exit.code}` : `signal ${exit.signal}`})`);
  return { baseUrl: worker.baseUrl, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }), gone };
}

/** Throws RunNotServableError unless the run directory has a configuration, a routing file and trained adapters. */
export function checkServableRun(runDirectory: string): void {
  const refuse = (missing: string, reason: string) => new RunNotServableError(runDirectory, missing, reason);
  if (!existsSync(runDirectory) || !statSync(runDirectory).isDirectory()) throw refuse(runDirectory, "no such run directory");
  const run = openRunDirectory(runDirectory);
  if (!existsSync(run.configFile)) throw refuse(run.configFile, "no config.json: not a run directory written by `trace run`");
  if (!existsSync(run.routingFile)) throw refuse(run.routingFile, "no eval/routing.json: the run has not finished its route stage (rerun `trace run` to resume it)");
  if (run.readTrainedAdapters().length === 0) throw refuse(run.adaptersDirectory, "no trained adapters (adapters/<capability>/training.json): nothing to route to");
}

/** Checks the run, starts its worker with the trained adapters loaded, builds its router and listens. */
export async function serveRun(runDirectory: string, options: ServeRunOptions): Promise<ServingRun> {
  checkServableRun(runDirectory);
  const config = loadPipelineConfig(openRunDirectory(runDirectory).configFile, { runDirectory });
  const context = createPipelineContext(config, options.log);
  try {
    const router = await createRunRouter(context);
    await ensureAdaptersServed(context, await routedAdapters(context, router.options));
    const { gone, ...upstream } = await upstreamOf(context);
    // An external sampler serves the base model under its own name; adapters keep theirs.
    const baseModel = context.externalPolicy?.model;
    const route = async (request: string) => {
      const decision = await router.route(request);
      return decision.capability === null && baseModel !== undefined ? { ...decision, model: baseModel } : decision;
    };
    const server = await createRoutedChatServer({ upstream, route, servedModelName: config.name }).listen(options.port, options.host);
    return {
      url: server.url,
      servedModelName: config.name,
      routes: router.options.map((option) => `${option.label}=${option.capability === null ? "base" : option.model}`),
      upstreamGone: gone,
      async close() {
        await server.close();
        await context.close();
      },
    };
  } catch (error) {
    await context.close();
    throw error;
  }
}

/** The first SIGINT or SIGTERM from now on, and a way to stop listening for them. */
function stopSignals(): { next: Promise<NodeJS.Signals>; dispose(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => undefined;
  const next = new Promise<NodeJS.Signals>((resolve) => (onSignal = resolve));
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    next,
    dispose() {
      process.removeListener("SIGINT", onSignal);
      process.removeListener("SIGTERM", onSignal);
    },
  };
}

/**
 * Serves until a stop signal (exit code 0) or until the upstream goes away (exit code 1). A signal while starting exits
 * at once: the worker process manager kills a worker still loading when this process exits.
 */
async function serveUntilStopped(runDirectory: string, options: { port: number; host: string }): Promise<void> {
  const log = (line: string) => void process.stderr.write(`${line}\n`);
  const signals = stopSignals();
  try {
    const started = await Promise.race([serveRun(runDirectory, { ...options, log }), signals.next.then((signal) => ({ interrupted: signal }))]);
    if ("interrupted" in started) {
      log(`trace serve: ${started.interrupted} while starting: stopping`);
      process.exit(128 + os.constants.signals[started.interrupted]);
    }
    try {
      process.stdout.write(`trace serve: ${started.url} (model ${started.servedModelName}; routes: ${started.routes.join(", ")})\n`);
      const ended = await Promise.race([signals.next.then((signal) => ({ signal })), started.upstreamGone.then((reason) => ({ reason }))]);
      if ("signal" in ended) log(`trace serve: ${ended.signal}: stopping`);
      else {
        log(`trace serve: ${ended.reason}; stopping`);
        process.exitCode = 1;
      }
    } finally {
      await started.close();
    }
  } finally {
    signals.dispose();
  }
}

/** The highest TCP port. */
const MAXIMUM_PORT = 65_535;

/** `--port`: an integer in [0, 65535] (checked before the run's worker is started), or a UsageError. */
export function portOption(text: string): number {
  const port = integerOption("--port", text, 0);
  if (port > MAXIMUM_PORT) throw new UsageError(`--port must be an integer ≤ ${MAXIMUM_PORT}, got ${JSON.stringify(text)}`);
  return port;
}

/** Adds `trace serve RUN [--port N] [--host H]` to the program. */
export function registerServeCommand(program: Command): void {
  addRunDirectoryArgument(
    program
      .command("serve")
      .description("serve a finished `trace run` run's routed agent (its eval/routing.json and trained adapters) as an OpenAI-compatible /v1/chat/completions (each conversation routed on its first user message); Ctrl-C or SIGTERM stops it"),
  )
    .option("--port <n>", "port to bind (0: a free one)", portOption, DEFAULT_SERVE_PORT)
    .option("--host <host>", "address to bind", "127.0.0.1")
    .action(async (runDirectory: string, options: { port: number; host: string }) => {
      await serveUntilStopped(runDirectory, options);
    });
}
