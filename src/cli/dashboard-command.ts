/** `trace dashboard RUN... [--port N] [--host H]`: the web page of one or more run directories, until Ctrl-C or SIGTERM. */
import type { Command } from "commander";
import { startDashboard } from "../dashboard/start-dashboard.js";
import { portOption } from "./serve-command.js";

/** The default port of `trace dashboard`. */
export const DEFAULT_DASHBOARD_PORT = 8470;

/** Serves the dashboard until the process gets SIGINT or SIGTERM. */
async function dashboardUntilStopped(runs: string[], options: { port: number; host: string }): Promise<void> {
  const log = (line: string) => void process.stderr.write(`${line}\n`);
  const listening = await startDashboard({ runs, port: options.port, host: options.host, log });
  process.stdout.write(`trace dashboard: ${listening.origin}/ (${runs.length} ${runs.length === 1 ? "run" : "runs"}: ${runs.join(", ")})\n`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  log(`trace dashboard: ${signal}: stopping`);
  await listening.close();
}

/** Adds `trace dashboard` to the program. */
export function registerDashboardCommand(program: Command): void {
  program
    .command("dashboard")
    .description("a local web page of run directories (stages, rollouts, analysis, environments, training, routing, comparison), updated live while a run is written; Ctrl-C or SIGTERM stops it")
    .argument("<runs...>", "run directories written by `trace run` (several: compared side by side)")
    .option("--port <n>", "port to bind (0: a free one)", portOption, DEFAULT_DASHBOARD_PORT)
    .option("--host <host>", "address to bind (loopback only by default)", "127.0.0.1")
    .action(async (runs: string[], options: { port: number; host: string }) => {
      await dashboardUntilStopped(runs, options);
    });
}
