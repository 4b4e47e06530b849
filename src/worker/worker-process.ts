/**
 * Starts the Python worker (`python -m trace_worker serve …`) as a child process, waits until `GET /health` answers,
 * and stops it (SIGTERM, then SIGKILL after a grace period).
 *
 * A worker never outlives this process: when it exits the workers get SIGKILL; when SIGINT, SIGTERM or SIGHUP would end
 * it (no other listener for that signal), the workers get SIGTERM and the signal then takes its default course. And
 * should this process die where it can do nothing (SIGKILL, a crash), the worker sees it itself
 * (worker/trace_worker/parent_watch.py): its stdin is a pipe from here that nothing writes, closed by the kernel when
 * this process dies, and TRACE_WORKER_PARENT_PID names this process.
 */
import { randomBytes } from "node:crypto";
import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { isMainThread } from "node:worker_threads";
import { findFreePort } from "./free-port.js";
import { OutputTail } from "./output-tail.js";
import { repositoryRoot as ownRepositoryRoot, resolvePythonInterpreter, workerEnvironment } from "./python-environment.js";
import { createTrainerClient, type TrainerClient, type TrainerClientOptions } from "./trainer-client.js";
import type { WorkerHealth } from "./trainer-types.js";
import { WorkerOptionError, WorkerStartError } from "./worker-start-error.js";

export interface StartWorkerOptions {
  /** Checkpoint directory (any Hugging Face causal LM, or one made by `trace model init-tiny`). */
  model: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: a free port, chosen anew (up to 3 times) if another process takes it first. */
  port?: number;
  /**
   * Bearer token the worker demands (passed as TRACE_WORKER_API_KEY, so it stays out of the process list). Default: a
   * random one, so that no other local process can use the worker; `open: true` starts it without a token.
   */
  apiKey?: string;
  /** Start the worker without a token (only where its user asked for that, e.g. `trace worker serve` on loopback). */
  open?: boolean;
  /** The worker refuses (403) file paths in requests outside this directory (e.g. the run directory). */
  fileRoot?: string;
  servedModelName?: string;
  /** Further `serve` arguments, appended as given. */
  extraArguments?: string[];
  /**
   * Processes (one per GPU) for training: above 1 the worker starts under torchrun (`python -m torch.distributed.run
   * --standalone --nproc-per-node N`); rank 0 serves, every trainer call's datums are split across the ranks. Default 1.
   */
  gpus?: number;
  /** Interpreter; default TRACE_PYTHON, else `<repositoryRoot>/.venv/bin/python`. */
  python?: string;
  repositoryRoot?: string;
  /** Base environment of the child (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for `/health` (default 180 000 ms: loading a large checkpoint takes a while). */
  startupTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL in `stop()` (default 10 000 ms). */
  stopGraceMs?: number;
  /** Receives the worker's output as it comes (e.g. to echo it); it is kept for error messages either way. */
  onOutput?: (stream: "stdout" | "stderr", text: string) => void;
}

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WorkerProcess {
  /** e.g. `http://127.0.0.1:41234` */
  readonly origin: string;
  /** `${origin}/v1`: what the chat client and the trainer client take. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly port: number;
  readonly pid: number;
  /** The worker's `/health` answer when it became ready. */
  readonly health: WorkerHealth;
  /** Settles when the process ends, for whatever reason. */
  readonly exited: Promise<WorkerExit>;
  /** The last of what the worker wrote to stderr. */
  stderrTail(): string;
  /** A trainer client for this worker (base URL and token filled in). */
  trainerClient(options?: Omit<TrainerClientOptions, "baseUrl" | "apiKey">): TrainerClient;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the process is gone. Safe to call more than once. */
  stop(): Promise<WorkerExit>;
}

const PORT_ATTEMPTS = 3;
const HEALTH_POLL_MS = 200;

/** The workers of this process that are still running, and the process listeners (one set for all of them) that stop them. */
const liveWorkers = new Set<ChildProcess>();
const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

function killLiveWorkers(signal: NodeJS.Signals): void {
  for (const child of liveWorkers) {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function onProcessExit(): void {
  killLiveWorkers("SIGKILL");
}

/**
 * A signal that would end this process: with no listener of the program's own, Node would die of it at once and leave
 * the workers behind, so they get SIGTERM (their clean shutdown) and the signal is raised again with the listeners
 * gone. A program that listens for the signal itself decides what happens (`trace worker serve` stops its worker); at
 * its exit the workers still running get SIGKILL.
 */
function onEndingSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killLiveWorkers("SIGTERM");
  removeProcessListeners();
  process.kill(process.pid, signal);
}

function addProcessListeners(): void {
  process.on("exit", onProcessExit);
  for (const signal of ENDING_SIGNALS) process.on(signal, onEndingSignal);
}

function removeProcessListeners(): void {
  process.removeListener("exit", onProcessExit);
  for (const signal of ENDING_SIGNALS) process.removeListener(signal, onEndingSignal);
}

function trackWorker(child: ChildProcess, exited: Promise<unknown>): void {
  if (liveWorkers.size === 0) addProcessListeners();
  liveWorkers.add(child);
  void exited.then(() => {
    liveWorkers.delete(child);
    if (liveWorkers.size === 0) removeProcessListeners();
  });
}

/** How many workers this process has running (for tests). */
export function liveWorkerCount(): number {
  return liveWorkers.size;
}

/** The host to connect to: a wildcard bind address is reached on loopback, an IPv6 literal needs brackets. */
function connectHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

/** Starts the worker and resolves once it answers `/health`; throws WorkerStartError (with its stderr tail) otherwise. */
export async function startWorker(options: StartWorkerOptions): Promise<WorkerProcess> {
  const root = options.repositoryRoot ?? ownRepositoryRoot;
  const python = resolvePythonInterpreter({ python: options.python, repositoryRoot: root, env: options.env });
  const host = options.host ?? "127.0.0.1";
  if (options.gpus !== undefined && (!Number.isInteger(options.gpus) || options.gpus < 1)) throw new WorkerOptionError("gpus", options.gpus, "a positive integer");
  for (let attempt = 1; ; attempt += 1) {
    const port = options.port ?? (await findFreePort(host));
    try {
      return await launch(options, { python, root, host, port });
    } catch (error) {
      const portTaken = WorkerStartError.isInstance(error) && error.reason === "exited" && /address already in use|errno 98/i.test(error.stderrTail);
      if (options.port === undefined && portTaken && attempt < PORT_ATTEMPTS) continue;
      throw error;
    }
  }
}

async function launch(given: StartWorkerOptions, where: { python: string; root: string; host: string; port: number }): Promise<WorkerProcess> {
  const options = { ...given, apiKey: given.apiKey ?? (given.open === true ? undefined : randomBytes(24).toString("hex")) };
  const gpus = options.gpus ?? 1;
  // torchrun through the same interpreter (its console script may not be on PATH); --standalone picks a free rendezvous port.
  const launcher = gpus > 1 ? ["-m", "torch.distributed.run", "--standalone", "--nproc-per-node", String(gpus)] : [];
  const serveArguments = [...launcher, "-m", "trace_worker", "serve", "--model", options.model, "--host", where.host, "--port", String(where.port)];
  if (options.servedModelName !== undefined) serveArguments.push("--served-model-name", options.servedModelName);
  if (options.fileRoot !== undefined) serveArguments.push("--file-root", options.fileRoot);
  serveArguments.push(...(options.extraArguments ?? []));
  const env = workerEnvironment(where.root, options.env ?? process.env);
  if (options.apiKey !== undefined) env.TRACE_WORKER_API_KEY = options.apiKey;
  else delete env.TRACE_WORKER_API_KEY;
  // The worker watches this process (parent_watch.py). PR_SET_PDEATHSIG fires when the thread that spawned it ends, so
  // the worker asks for it only when that is the main thread.
  env.TRACE_WORKER_PARENT_PID = String(process.pid);
  env.TRACE_WORKER_PDEATHSIG = isMainThread ? "1" : "0";
  const command = [where.python, ...serveArguments];

  const stderr = new OutputTail();
  // stdin: a pipe nothing writes to; its end of file tells the worker that this process is gone.
  const child = spawn(where.python, serveArguments, { cwd: where.root, env, stdio: ["pipe", "pipe", "pipe"] });
  child.stdin?.on("error", () => undefined);
  const exited = new Promise<WorkerExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    // A spawn failure (e.g. EACCES) emits "error" and no "exit".
    child.once("error", (error) => {
      stderr.append(`${error.message}\n`);
      resolve({ code: null, signal: null });
    });
  });
  child.stdout?.setEncoding("utf8").on("data", (text: string) => options.onOutput?.("stdout", text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr.append(text);
    options.onOutput?.("stderr", text);
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });
  trackWorker(child, exited);

  const graceMs = options.stopGraceMs ?? 10_000;
  let stopping: Promise<WorkerExit> | undefined;
  const stop = (): Promise<WorkerExit> => (stopping ??= stopChild(child, exited, () => hasExited, graceMs));

  const origin = `http://${connectHost(where.host)}:${where.port}`;
  const baseUrl = `${origin}/v1`;
  const probe = createTrainerClient({ baseUrl });
  const timeoutMs = options.startupTimeoutMs ?? 180_000;
  const deadline = Date.now() + timeoutMs;
  let health: WorkerHealth | undefined;
  let lastError: unknown;
  while (health === undefined) {
    if (hasExited) {
      const exit = await exited;
      throw new WorkerStartError("exited", command, exit.code, exit.signal, stderr.toString(40));
    }
    if (Date.now() > deadline) {
      await stop();
      throw new WorkerStartError("timeout", command, null, null, stderr.toString(40), { cause: lastError, timeoutMs });
    }
    try {
      health = await probe.health({ timeoutMs: 2_000 });
    } catch (error) {
      lastError = error;
      await Promise.race([sleep(HEALTH_POLL_MS), exited]);
    }
  }

  const pid = child.pid ?? -1;
  const ready = health;
  return {
    origin,
    baseUrl,
    apiKey: options.apiKey,
    port: where.port,
    pid,
    health: ready,
    exited,
    stderrTail: () => stderr.toString(),
    trainerClient: (clientOptions = {}) => createTrainerClient({ ...clientOptions, baseUrl, apiKey: options.apiKey }),
    stop,
  };
}

async function stopChild(child: ChildProcess, exited: Promise<WorkerExit>, hasExited: () => boolean, graceMs: number): Promise<WorkerExit> {
  if (hasExited()) return exited;
  child.kill("SIGTERM");
  const graceTimer = new AbortController();
  const graceOver = sleep(graceMs, "grace over" as const, { signal: graceTimer.signal }).catch(() => "cancelled" as const);
  const first = await Promise.race([exited, graceOver]);
  graceTimer.abort();
  if (first === "grace over" && !hasExited()) child.kill("SIGKILL");
  return exited;
}
