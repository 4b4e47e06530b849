/**
 * The rollout runner: every task × trial of an environment through `runEpisode`, with a concurrency limit, each
 * result stored as it completes, resumable.
 *
 * Episodes are planned in order (task 0 trial 0, task 0 trial 1, …); episode `index` gets the seed `baseSeed + index`.
 * Each episode is claimed in the store before it starts (`claimEpisode`): finished ones are skipped, pending, running
 * (interrupted) and failed ones are redone. A finished conversation — agent_error and user_error included — is stored
 * with `finishEpisode` in one write; a failure outside the conversation is stored with `failEpisode` (status failed,
 * its error text kept): an endpoint failure of the policy or the LLM user (`EpisodeEndpointError`: refused connection,
 * timeout after retries, context-length overflow, …), the user factory, the environment, grading. Failed episodes are
 * errors, not graded failures: they count in `failed`, never in `finished` or the pass rate, and the next run redoes
 * them.
 *
 * Abort (`signal`): no new episode starts, and the runner returns at once. Episodes in flight are abandoned: their
 * results are never written (they stay `running`, which the next run claims and redoes), and their policy / user
 * requests after the abort fail fast.
 */
import type { ChatClient } from "../models/chat-client.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import type { EpisodeKey, TrajectoryStore } from "../store/trajectory-store.js";
import { runEpisode, type SamplingOptions } from "./agent-loop.js";
import type { SimulatedUser } from "./simulated-user.js";
import { EpisodesFailedError } from "./episodes-failed-error.js";
import { positiveInteger } from "./positive-integer.js";
import { TraceError } from "../spec/trace-error.js";

/** The error requests made after an abort fail with. */
export class RolloutAbortedError extends TraceError {
  override readonly name = "RolloutAbortedError";
  constructor() {
    super("rollout aborted", { category: "internal" });
  }
}

export interface PlannedEpisode {
  key: EpisodeKey;
  task: Task;
  index: number;
  seed: number;
}

export interface RolloutProgress {
  /** Episodes accounted for: finished + failed + skipped. */
  done: number;
  total: number;
  finished: number;
  failed: number;
  skipped: number;
  /** Episodes running now. */
  running: number;
  /** Successful among finished (this run) and skipped (finished earlier). */
  passed: number;
  /** passed / (finished + skipped); null when none. */
  passRate: number | null;
  elapsedMs: number;
  /** Estimated time left from the mean duration of episodes run so far; null before the first. */
  etaMs: number | null;
  /** The episode that just completed, when the event is about one; for a failed one, `error` is its name and message. */
  last?: { key: EpisodeKey; status: "finished" | "failed" | "skipped"; success?: boolean; termination?: string; error?: string };
}

export interface RunRolloutsOptions {
  environment: Environment;
  /** Defaults to every task of the environment. */
  tasks?: readonly Task[];
  /** Trials per task (default 1). */
  trials?: number;
  /** Episodes in flight at once (default 1). */
  concurrency?: number;
  store: TrajectoryStore;
  /** The policy, shared by all episodes (or `makePolicy` for one per episode). */
  policy?: ChatClient;
  makePolicy?: (episode: PlannedEpisode) => ChatClient;
  makeUser: (task: Task, episode: PlannedEpisode) => SimulatedUser;
  /** Sent with every policy request; `seed` is replaced by the episode's seed. */
  sampling?: SamplingOptions;
  /** Seed of episode 0 (default 0). */
  baseSeed?: number;
  maxSteps?: number;
  maxErrors?: number;
  signal?: AbortSignal;
  onProgress?: (progress: RolloutProgress) => void;
  /** Stored with each claimed episode (model, sampling, run config). */
  metadata?: Record<string, unknown>;
}

export interface RolloutSummary {
  /** Planned episodes (tasks × trials). */
  total: number;
  /** Finished in this run. */
  finished: number;
  /** Already finished before this run. */
  skipped: number;
  /** Failed in this run. */
  failed: number;
  /** Neither finished nor skipped nor failed (only after an abort). */
  remaining: number;
  passed: number;
  /** passed / (finished + skipped); null when none. */
  passRate: number | null;
  aborted: boolean;
  elapsedMs: number;
}

/** Plans the episodes: tasks in order, each with `trials` trials; episode `index` gets seed `baseSeed + index`. */
function planEpisodes(environment: string, tasks: readonly Task[], trials: number, baseSeed: number): PlannedEpisode[] {
  const planned: PlannedEpisode[] = [];
  for (const task of tasks) {
    for (let trial = 0; trial < trials; trial++) {
      const index = planned.length;
      planned.push({ key: { environment, taskId: task.id, trial }, task, index, seed: baseSeed + index });
    }
  }
  return planned;
}

/** A client whose requests fail once `signal` is aborted, so abandoned episodes end at their next turn. */
function abortable(client: ChatClient, signal: AbortSignal | undefined): ChatClient {
  if (signal === undefined) return client;
  return {
    complete: (request) => (signal.aborted ? Promise.reject(new RolloutAbortedError()) : client.complete(request)),
    usage: () => client.usage(),
  };
}

function abortableUser(user: SimulatedUser, signal: AbortSignal | undefined): SimulatedUser {
  if (signal === undefined) return user;
  return { respond: (conversation) => (signal.aborted ? Promise.reject(new RolloutAbortedError()) : user.respond(conversation)) };
}

/** Runs the planned episodes; see the module comment. Resolves with the summary (after an abort, at once). */
export async function runRollouts(options: RunRolloutsOptions): Promise<RolloutSummary> {
  const started = performance.now();
  const { environment, store, signal } = options;
  const trials = positiveInteger("trials", options.trials ?? 1);
  const concurrency = positiveInteger("concurrency", options.concurrency ?? 1);
  if (options.policy === undefined && options.makePolicy === undefined) throw new TypeError("runRollouts needs policy or makePolicy");
  const planned = planEpisodes(environment.name, options.tasks ?? environment.tasks(), trials, options.baseSeed ?? 0);

  const finishedBefore = new Map<string, boolean>();
  for (const record of store.listEpisodes({ environment: environment.name, status: "finished" })) {
    finishedBefore.set(`${record.taskId}\u0000${record.trial}`, record.success === true);
  }
  const counts = { finished: 0, failed: 0, skipped: 0, passed: 0, running: 0 };
  let runDurationMs = 0;
  let ran = 0;
  const toRun: PlannedEpisode[] = [];
  for (const episode of planned) {
    const success = finishedBefore.get(`${episode.key.taskId}\u0000${episode.key.trial}`);
    if (success === undefined) toRun.push(episode);
    else {
      counts.skipped += 1;
      if (success) counts.passed += 1;
    }
  }

  const progress = (last?: RolloutProgress["last"]): RolloutProgress => {
    const done = counts.finished + counts.failed + counts.skipped;
    const graded = counts.finished + counts.skipped;
    const left = planned.length - done;
    const etaMs = ran === 0 ? null : ((runDurationMs / ran) * left) / concurrency;
    const event: RolloutProgress = {
      done,
      total: planned.length,
      finished: counts.finished,
      failed: counts.failed,
      skipped: counts.skipped,
      running: counts.running,
      passed: counts.passed,
      passRate: graded === 0 ? null : counts.passed / graded,
      elapsedMs: performance.now() - started,
      etaMs,
    };
    if (last !== undefined) event.last = last;
    return event;
  };
  const report = (last?: RolloutProgress["last"]) => options.onProgress?.(progress(last));
  report();

  const isAborted = () => signal?.aborted === true;

  async function runOne(episode: PlannedEpisode): Promise<void> {
    const claimOptions = { seed: episode.seed, ...(options.metadata === undefined ? {} : { metadata: options.metadata }) };
    if (!store.claimEpisode(episode.key, claimOptions)) {
      // Finished by someone else since planning.
      counts.skipped += 1;
      const record = store.getEpisode(episode.key);
      if (record?.success === true) counts.passed += 1;
      report({ key: episode.key, status: "skipped" });
      return;
    }
    counts.running += 1;
    const episodeStarted = performance.now();
    const startedAt = new Date().toISOString();
    let outcome: { ok: true; result: Awaited<ReturnType<typeof runEpisode>> } | { ok: false; error: unknown };
    try {
      const policy = abortable(options.policy ?? options.makePolicy!(episode), signal);
      const user = abortableUser(options.makeUser(episode.task, episode), signal);
      const result = await runEpisode({
        environment,
        task: episode.task,
        policy,
        user,
        sampling: { ...options.sampling, seed: episode.seed },
        trial: episode.key.trial,
        ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
        ...(options.maxErrors === undefined ? {} : { maxErrors: options.maxErrors }),
      });
      outcome = { ok: true, result };
    } catch (error) {
      outcome = { ok: false, error };
    }
    counts.running -= 1;
    // Abandoned: leave the episode claimable (running) for the next run rather than storing a cut-short result.
    if (isAborted()) return;
    runDurationMs += performance.now() - episodeStarted;
    ran += 1;
    if (outcome.ok) {
      const { result } = outcome;
      const metadata: Record<string, unknown> = { ...options.metadata, steps: result.steps, errors: result.errors, durationMs: Math.round(result.durationMs), policyUsage: result.policyUsage };
      if (result.error !== undefined) metadata.error = result.error;
      try {
        store.finishEpisode(episode.key, result.trajectory, { metadata, startedAt });
      } catch (error) {
        fail(episode.key, error);
        return;
      }
      counts.finished += 1;
      const success = result.trajectory.reward?.success === true;
      if (success) counts.passed += 1;
      report({ key: episode.key, status: "finished", success, termination: result.trajectory.termination });
    } else {
      fail(episode.key, outcome.error);
    }
  }

  function fail(key: EpisodeKey, error: unknown): void {
    store.failEpisode(key, error);
    counts.failed += 1;
    report({ key, status: "failed", error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }

  let next = 0;
  async function worker(): Promise<void> {
    while (!isAborted() && next < toRun.length) {
      const episode = toRun[next]!;
      next += 1;
      await runOne(episode);
    }
  }
  const workers = Promise.all(Array.from({ length: Math.min(concurrency, toRun.length) }, () => worker()));
  if (signal === undefined) await workers;
  else if (!signal.aborted) {
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([workers, aborted]);
    } finally {
      if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
    }
  }
  // Workers that are abandoned still settle on their own; they never write after the abort.
  workers.catch(() => undefined);

  const final = progress();
  return {
    total: planned.length,
    finished: counts.finished,
    skipped: counts.skipped,
    failed: counts.failed,
    remaining: planned.length - final.done,
    passed: counts.passed,
    passRate: final.passRate,
    aborted: isAborted(),
    elapsedMs: final.elapsedMs,
  };
}

/** `mm:ss` or `h:mm:ss`; `--:--` when unknown. */
export function formatDuration(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return "--:--";
  const seconds = Math.round(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const mmss = `${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

/** One progress line: `12/40 (30%) finished 10 failed 1 skipped 1 running 4 pass 45.5% elapsed 01:02 eta 02:30`. */
export function formatProgress(progress: RolloutProgress): string {
  const percent = progress.total === 0 ? 100 : Math.floor((100 * progress.done) / progress.total);
  const pass = progress.passRate === null ? "-" : `${(100 * progress.passRate).toFixed(1)}%`;
  return (
    `${progress.done}/${progress.total} (${percent}%) finished ${progress.finished} failed ${progress.failed} skipped ${progress.skipped}` +
    ` running ${progress.running} pass ${pass} elapsed ${formatDuration(progress.elapsedMs)} eta ${formatDuration(progress.etaMs)}`
  );
}

export interface ProgressPrinter {
  update(progress: RolloutProgress): void;
  /** Ends the TTY line (or prints the last state when it was not printed). */
  done(): void;
}

/**
 * A progress printer: on a TTY one line rewritten in place; otherwise a line every `every` completed episodes
 * (default 10), the first and the last.
 */
export function createProgressPrinter(stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, options: { every?: number; tty?: boolean } = {}): ProgressPrinter {
  const tty = options.tty ?? stream.isTTY === true;
  const every = Math.max(1, options.every ?? 10);
  let lastPrintedDone = -1;
  let latest: RolloutProgress | undefined;
  let open = false;
  return {
    update(progress) {
      latest = progress;
      if (tty) {
        stream.write(`\r\x1b[2K${formatProgress(progress)}`);
        open = true;
        return;
      }
      const isEnd = progress.done === progress.total;
      if (progress.done === lastPrintedDone) return;
      if (lastPrintedDone === -1 || isEnd || progress.done - lastPrintedDone >= every) {
        stream.write(formatProgress(progress) + "\n");
        lastPrintedDone = progress.done;
      }
    },
    done() {
      if (tty) {
        if (open) stream.write("\n");
        open = false;
      } else if (latest !== undefined && latest.done !== lastPrintedDone) {
        stream.write(formatProgress(latest) + "\n");
        lastPrintedDone = latest.done;
      }
    },
  };
}

/**
 * Throws `EpisodesFailedError` when episodes of `environment` in the store failed with errors (an endpoint failure,
 * the environment, grading): a stage that counts only finished episodes must not silently compare on fewer of them.
 */
export function throwIfEpisodesFailed(store: TrajectoryStore, environment: string): void {
  const failed = store.listEpisodes({ environment, status: "failed" });
  if (failed.length === 0) return;
  // The stored error may carry a stack: its first line, shortened, keeps the message one line.
  const example = failed[0]!.error?.split("\n")[0]?.slice(0, 400);
  throw new EpisodesFailedError(environment, failed.length, example);
}
