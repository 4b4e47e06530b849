/**
 * `npm run bench:dashboard [-- --episodes 10000 --repetitions 5]`: how fast a long run's rollouts view opens. Builds
 * a run directory whose store holds N episodes (and N training episodes), each with 8 assistant turns of sampled
 * tokens, then times side by side: the rollouts view's API (a page of 100, the count and the filter values, read in
 * SQL without messages), the same filtered, the training-episodes page, reading every episode in full
 * (`listEpisodes`, what a naive view would do), and — when Chromium is installed — the page in a headless browser from
 * navigation to the rendered table.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import puppeteer from "puppeteer-core";
import { createDashboardApp } from "../dashboard/dashboard-app.js";
import { dashboardRuns } from "../dashboard/dashboard-run.js";
import { startDashboard } from "../dashboard/start-dashboard.js";
import { openRunDirectory } from "../run/run-directory.js";
import type { Message } from "../spec/message.js";
import type { Trajectory } from "../spec/trajectory.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";

const { values } = parseArgs({ options: { episodes: { type: "string", default: "10000" }, repetitions: { type: "string", default: "5" } } });
const count = Number.parseInt(values.episodes, 10);
const repetitions = Number.parseInt(values.repetitions, 10);
const chromium = process.env.TRACE_CHROMIUM ?? "/usr/bin/chromium";

/** An episode of 8 assistant turns with sampled tokens (a 400-token prompt and a 40-token completion each). */
function episode(index: number, environment: string): Trajectory {
  const messages: Message[] = [{ role: "system", content: "policy ".repeat(200) }, { role: "user", content: `task ${index}` }];
  for (let turn = 0; turn < 8; turn += 1) {
    const ids = Array.from({ length: 400 }, (_, position) => (index + position) % 50_000);
    messages.push({ role: "assistant", content: `step ${turn}`, tokens: { promptTokenIds: ids, completionTokenIds: ids.slice(0, 40), completionLogprobs: Array.from({ length: 40 }, () => -0.5) } });
    messages.push({ role: "user", content: "go on" });
  }
  const reward = index % 3 === 0 ? 1 : 0;
  return { environment, taskId: `task-${index % 500}`, trial: Math.floor(index / 500), termination: index % 7 === 0 ? "max_steps" : "agent_stop", messages, reward: { reward, success: reward === 1, breakdown: { state: reward } } };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(action: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let repetition = 0; repetition < repetitions; repetition += 1) {
    const started = performance.now();
    await action();
    times.push(performance.now() - started);
  }
  return median(times);
}

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-bench-dashboard-"));
try {
  const run = openRunDirectory(path.join(scratch, "long-run"));
  run.create();
  const built = performance.now();
  const store = openTrajectoryStore(run.storeFile);
  store.transaction(() => {
    for (let index = 0; index < count; index += 1) store.finishEpisode({ environment: "tau2-airline", taskId: `task-${index % 500}`, trial: Math.floor(index / 500) }, episode(index, "tau2-airline"), { metadata: { policyUsage: { promptTokens: 3200, completionTokens: 320 } } });
  });
  const perIteration = 64;
  for (let start = 0; start < count; start += perIteration) {
    const iteration = start / perIteration + 1;
    store.training.record(Array.from({ length: Math.min(perIteration, count - start) }, (_, offset) => ({ adapter: "lookup", capability: "lookup", iteration, group: Math.floor(offset / 8), member: offset % 8, trajectory: episode(start + offset, "synthetic-lookup"), kept: true, advantage: 0 })));
  }
  console.log(`trace dashboard, rollouts view of a long run — ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, Node ${process.version}`);
  console.log(`store: ${count} episodes + ${count} training episodes, 8 assistant turns each with sampled tokens (built in ${((performance.now() - built) / 1000).toFixed(1)} s); median of ${repetitions}`);
  const app = createDashboardApp(dashboardRuns([run.root]));
  const api = (query: string) => async () => {
    const response = await app.fetch(new Request(`http://dashboard/api/runs/0/rollouts?${query}`));
    if (response.status !== 200) throw new Error(await response.text());
    return response.json();
  };
  const rows: [string, number][] = [
    ["rollouts view API: first page of 100, count, filter values", await time(api(""))],
    ["rollouts view API: failed episodes, terminated by max_steps, page 20", await time(api("success=false&termination=max_steps&offset=2000"))],
    ["rollouts view API: training episodes of one iteration", await time(api("source=training&adapter=lookup&iteration=3"))],
    ["every episode read in full (store.listEpisodes, a naive view)", await time(() => store.listEpisodes())],
  ];
  store.close();
  if (existsSync(chromium)) {
    const dashboard = await startDashboard({ runs: [run.root], port: 0 });
    const browser = await puppeteer.launch({ executablePath: chromium, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
    try {
      rows.push([
        "page in headless Chromium: a new tab's navigation to the rendered rollouts table",
        await time(async () => {
          const page = await browser.newPage();
          await page.goto(`${dashboard.origin}/#/0/rollouts`);
          await page.waitForFunction('document.querySelectorAll("[data-testid=episodes-table] tbody tr").length === 100', { polling: 10 });
          await page.close();
        }),
      ]);
    } finally {
      await browser.close();
      await dashboard.close();
    }
  } else rows.push([`page in a browser: skipped (no Chromium at ${chromium})`, Number.NaN]);
  const reference = rows[0]![1];
  console.log(markdownTable([["measurement", "ms", "× the first"], ...rows.map(([name, milliseconds]) => [name, Number.isNaN(milliseconds) ? "–" : milliseconds.toFixed(1), Number.isNaN(milliseconds) ? "–" : (milliseconds / reference).toFixed(1)])], { align: ["l", "r", "r"] }));
  const page = rows.find(([name]) => name.startsWith("page in headless"))?.[1];
  console.log(`Target: the rollouts view opens in under a second: ${page === undefined ? "browser not measured" : page < 1000 ? `MET (${page.toFixed(0)} ms in the browser)` : `NOT MET (${page.toFixed(0)} ms)`}.`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
