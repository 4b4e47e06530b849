/**
 * The rollouts view: a page of episodes from one of the run's stores — the base policy's rollouts (`store.sqlite`),
 * evaluation (`eval/episodes.sqlite`), comparison (`compare/episodes.sqlite`) or GRPO's training episodes — filtered in
 * SQL without reading messages, so a store of thousands of episodes opens at once; and one episode in full.
 */
import { z } from "zod";
import type { RunDirectory } from "../run/run-directory.js";
import { EPISODE_STATUSES, type EpisodeRecord, type EpisodeSummary } from "../store/trajectory-store.js";
import type { TrainingEpisodeRecord, TrainingEpisodeSummary } from "../store/training-episodes.js";
import { checkRunDirectory, withExistingStore } from "./dashboard-run.js";
import { DashboardQueryError } from "./dashboard-query-error.js";

export const EPISODE_SOURCES = ["rollouts", "evaluation", "comparison", "training"] as const;
export type EpisodeSource = (typeof EPISODE_SOURCES)[number];

const optionalText = z.string().optional().transform((text) => (text === "" ? undefined : text));
const optionalInteger = z.string().regex(/^\d+$/, "expected a non-negative integer").optional().transform((text) => (text === undefined || text === "" ? undefined : Number(text)));

/** The query string of `/api/runs/:run/rollouts`. */
export const rolloutsQuerySchema = z.object({
  source: z.enum(EPISODE_SOURCES).default("rollouts"),
  environment: optionalText,
  status: z.enum(["", ...EPISODE_STATUSES]).optional().transform((text) => (text === undefined || text === "" ? undefined : text)),
  termination: optionalText,
  success: z.enum(["", "true", "false"]).optional().transform((text) => (text === undefined || text === "" ? undefined : text === "true")),
  task: optionalText,
  adapter: optionalText,
  iteration: z.string().regex(/^\d*$/, "expected a positive integer").optional().transform((text) => (text === undefined || text === "" ? undefined : Number(text))),
  offset: optionalInteger,
  limit: optionalInteger,
});
export type RolloutsQuery = z.output<typeof rolloutsQuerySchema>;

/** The query string of `/api/runs/:run/episode`: an episode's key in its source. */
export const episodeQuerySchema = z.object({
  source: z.enum(EPISODE_SOURCES).default("rollouts"),
  environment: z.string().optional(),
  task: z.string().optional(),
  trial: optionalInteger,
  adapter: z.string().optional(),
  iteration: optionalInteger,
  group: optionalInteger,
  member: optionalInteger,
});
export type EpisodeQuery = z.output<typeof episodeQuerySchema>;

export interface RolloutsView {
  source: EpisodeSource;
  /** Sources whose store exists in this run. */
  sources: EpisodeSource[];
  total: number;
  offset: number;
  limit: number;
  episodes: (EpisodeSummary | TrainingEpisodeSummary)[];
  /** Values to filter by: the store's environments and terminations; the adapters and iterations with training episodes. */
  environments: string[];
  terminations: string[];
  adapters: { adapter: string; iterations: number[] }[];
  notices: string[];
}

/** Rows of a page [100], at most 1000. */
const DEFAULT_LIMIT = 100;
const MAXIMUM_LIMIT = 1000;

/** The store file of a source. */
export function sourceStoreFile(run: RunDirectory, source: EpisodeSource): string {
  if (source === "evaluation") return run.evaluationStoreFile;
  if (source === "comparison") return run.compareStoreFile;
  return run.storeFile;
}

function adapterIterations(rows: readonly { adapter: string; iteration: number }[]): { adapter: string; iterations: number[] }[] {
  const byAdapter = new Map<string, number[]>();
  for (const row of rows) byAdapter.set(row.adapter, [...(byAdapter.get(row.adapter) ?? []), row.iteration]);
  return [...byAdapter].map(([adapter, iterations]) => ({ adapter, iterations }));
}

/** Reads one page of a source's episodes. */
export function readRolloutsView(run: RunDirectory, query: RolloutsQuery): RolloutsView {
  checkRunDirectory(run);
  const offset = query.offset ?? 0;
  const limit = Math.min(query.limit ?? DEFAULT_LIMIT, MAXIMUM_LIMIT);
  const file = sourceStoreFile(run, query.source);
  const sources = EPISODE_SOURCES.filter((source) => withExistingStore(sourceStoreFile(run, source), false, () => true));
  const empty: RolloutsView = { source: query.source, sources, total: 0, offset, limit, episodes: [], environments: [], terminations: [], adapters: [], notices: [`no ${run.relative(file)} yet: this run has no ${query.source} episodes`] };
  return withExistingStore(file, empty, (store) => {
    const adapters = adapterIterations(store.training.iterations());
    if (query.source === "training") {
      const page = store.training.page({ ...(query.adapter === undefined ? {} : { adapter: query.adapter }), ...(query.iteration === undefined ? {} : { iteration: query.iteration }), offset, limit });
      const notices = adapters.length === 0 ? ["no training episodes stored (training not run yet, or training.keepRollouts is \"none\")"] : [];
      return { source: query.source, sources, total: page.total, offset, limit, episodes: page.episodes, environments: [], terminations: [], adapters, notices };
    }
    const page = store.pageEpisodes({
      ...(query.environment === undefined ? {} : { environment: query.environment }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.termination === undefined ? {} : { termination: query.termination }),
      ...(query.success === undefined ? {} : { success: query.success }),
      ...(query.task === undefined ? {} : { task: query.task }),
      offset,
      limit,
    });
    return { source: query.source, sources, total: page.total, offset, limit, episodes: page.episodes, environments: page.environments, terminations: page.terminations, adapters, notices: [] };
  });
}

/** One episode in full (messages with tool calls and results, reward record, metadata), or a `DashboardQueryError` naming the key. */
export function readEpisode(run: RunDirectory, query: EpisodeQuery): EpisodeRecord | TrainingEpisodeRecord {
  checkRunDirectory(run);
  const file = sourceStoreFile(run, query.source);
  const found = withExistingStore<EpisodeRecord | TrainingEpisodeRecord | undefined>(file, undefined, (store) => {
    if (query.source === "training") {
      if (query.adapter === undefined || query.iteration === undefined || query.group === undefined || query.member === undefined) throw new DashboardQueryError("a training episode needs adapter, iteration, group and member", query);
      return store.training.get({ adapter: query.adapter, iteration: query.iteration, group: query.group, member: query.member });
    }
    if (query.environment === undefined || query.task === undefined || query.trial === undefined) throw new DashboardQueryError("an episode needs environment, task and trial", query);
    return store.getEpisode({ environment: query.environment, taskId: query.task, trial: query.trial });
  });
  if (found === undefined) throw new DashboardQueryError(`no such ${query.source} episode in ${run.relative(file)}: ${JSON.stringify(query)}`, query);
  return found;
}
