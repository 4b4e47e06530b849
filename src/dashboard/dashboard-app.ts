/**
 * The dashboard's HTTP app (Hono): the page, its scripts, and one JSON endpoint per view of each run. Every view is
 * read from the run directory at request time, so the page follows a run while it is written; a bad run (not a run
 * directory, a malformed artifact, a corrupt store) answers `{ error }` with a one-line message and the server stays up.
 */
import { readFileSync } from "node:fs";
import { Hono, type Context } from "hono";
import type { z } from "zod";
import { TraceError } from "../spec/trace-error.js";
import { readAnalysisView } from "./analysis-view.js";
import { readComparisonView } from "./comparison-view.js";
import { DashboardQueryError } from "./dashboard-query-error.js";
import type { DashboardRun } from "./dashboard-run.js";
import { readEnvironmentsView } from "./environments-view.js";
import { pageHtml } from "./page-html.js";
import { episodeQuerySchema, readEpisode, readRolloutsView, rolloutsQuerySchema } from "./rollouts-view.js";
import { readEvaluationResults, readRoutingView } from "./routing-view.js";
import { readStagesView } from "./stages-view.js";
import { staticAssetFiles } from "./static-assets.js";
import { readTrainingView } from "./training-view.js";

/** What `/api/runs` lists: each run, its finished stages and evaluation, or why it cannot be shown. */
export interface RunListing {
  id: number;
  label: string;
  root: string;
  stagesDone: string[];
  evaluation: { base: number; trace: number; total: number } | null;
  problem: string | null;
}

/** A view's reader: the run and the request's query. */
type ViewReader = (run: DashboardRun, query: Record<string, string>) => unknown;

function parseQuery<Schema extends z.ZodType>(schema: Schema, query: Record<string, string>): z.output<Schema> {
  const result = schema.safeParse(query);
  if (!result.success) throw new DashboardQueryError(result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; "), query);
  return result.data;
}

const VIEWS: Record<string, ViewReader> = {
  stages: (run) => readStagesView(run),
  rollouts: (run, query) => readRolloutsView(run.run, parseQuery(rolloutsQuerySchema, query)),
  episode: (run, query) => readEpisode(run.run, parseQuery(episodeQuerySchema, query)),
  analysis: (run) => readAnalysisView(run.run),
  environments: (run) => readEnvironmentsView(run.run),
  training: (run) => readTrainingView(run.run),
  routing: (run) => readRoutingView(run.run),
  comparison: (run) => readComparisonView(run.run),
};

/** The views the page's header links to, in order (an episode is opened from the others). */
export const VIEW_NAMES = Object.keys(VIEWS).filter((view) => view !== "episode");

/** One line for the page: a project error's message, or a fault's name and message. */
function describe(error: unknown): string {
  if (error instanceof Error) return TraceError.isInstance(error) ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}

function listRun(run: DashboardRun): RunListing {
  try {
    const stages = readStagesView(run);
    const overall = readEvaluationResults(run.run)?.overall;
    return {
      id: run.id,
      label: run.label,
      root: run.root,
      stagesDone: stages.stages.filter((stage) => stage.status === "done").map((stage) => stage.stage),
      evaluation: overall === undefined ? null : { base: overall.base.passed, trace: overall.trace.passed, total: overall.trace.total },
      problem: null,
    };
  } catch (error) {
    return { id: run.id, label: run.label, root: run.root, stagesDone: [], evaluation: null, problem: describe(error) };
  }
}

/** Builds the app over the given runs; `log` hears about faults (errors that are not the project's). */
export function createDashboardApp(runs: readonly DashboardRun[], options: { log?: (line: string) => void } = {}): Hono {
  const app = new Hono();
  const assets = staticAssetFiles();
  const title = `trace dashboard: ${runs.map((run) => run.label).join(", ")}`;
  const fail = (context: Context, error: unknown) => {
    const status = TraceError.isInstance(error) ? (error.category === "usage" ? 400 : 422) : 500;
    if (status === 500) options.log?.(`trace dashboard: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return context.json({ error: describe(error) }, status);
  };
  app.get("/", (context) => context.html(pageHtml(title)));
  app.get("/favicon.ico", (context) => context.body(null, 204));
  app.get("/assets/:file", (context) => {
    const file = assets.get(new URL(context.req.url).pathname);
    if (file === undefined) return context.notFound();
    return context.body(readFileSync(file), 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" });
  });
  app.get("/api/runs", (context) => context.json({ title, views: VIEW_NAMES, runs: runs.map(listRun) }));
  app.get("/api/runs/:run/:view", (context) => {
    try {
      const id = Number(context.req.param("run"));
      const run = runs[id];
      if (!Number.isInteger(id) || run === undefined) throw new DashboardQueryError(`no run ${context.req.param("run")} (runs 0 … ${runs.length - 1})`, context.req.param("run"));
      const reader = VIEWS[context.req.param("view")];
      if (reader === undefined) throw new DashboardQueryError(`no view ${context.req.param("view")} (views: ${VIEW_NAMES.join(", ")})`, context.req.param("view"));
      return context.json(reader(run, context.req.query()));
    } catch (error) {
      return fail(context, error);
    }
  });
  app.onError((error, context) => fail(context, error));
  return app;
}
