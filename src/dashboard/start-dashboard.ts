/** `trace dashboard`'s server: the app over the given run directories, listening on a port (loopback by default). */
import { listenApp, type ListeningApp } from "../serving/listen-app.js";
import { createDashboardApp } from "./dashboard-app.js";
import { dashboardRuns } from "./dashboard-run.js";

export interface StartDashboardOptions {
  /** Run directories, in the order the page lists them (any may be bad: the page says why). */
  runs: readonly string[];
  /** 0: a free port. */
  port: number;
  /** [127.0.0.1] */
  host?: string;
  log?: (line: string) => void;
}

/** Starts the dashboard; its `origin` is the page's URL. */
export async function startDashboard(options: StartDashboardOptions): Promise<ListeningApp> {
  const app = createDashboardApp(dashboardRuns(options.runs), options.log === undefined ? {} : { log: options.log });
  return listenApp(app, options.port, options.host ?? "127.0.0.1");
}
