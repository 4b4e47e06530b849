/**
 * `trace dashboard` in a real headless Chromium (Debian's package, driven by puppeteer-core; `TRACE_CHROMIUM` names
 * another executable): the page follows a `trace run` of the ticketing example (scripted analyst and generator, the
 * worker's tiny model) from before the run directory exists, through a half-written run and a training curve gaining
 * points as GRPO writes iterations, to every view of the finished run, each checked against the run's own files; a bad
 * run directory and a corrupt store show a message while the server stays up. Screenshots of every view go to
 * runs/dashboard-screenshots/ (git-ignored).
 *
 * The same run is the end-to-end test of a user's own target as a module (issue: your own environment; the MCP form is
 * in src/cli/own-target-run.test.ts): every stage on the worked example's train and test tasks, the analyst shown the
 * task, the generator shown the target's tools and policy, GRPO's sampled groups exported by `trace export --training`.
 * One run serves both because each `trace run` of it costs a worker, a tiny checkpoint and every stage.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { PIPELINE_STAGES } from "../pipeline/run-pipeline.js";
import { openRunDirectory } from "../run/run-directory.js";
import type { ListeningApp } from "../serving/listen-app.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import type { FakeChatServer } from "../testing/fake-chat-server.js";
import { firstContent, repositoryRoot, scriptedEndpoints, small, startTrace, ticketingModuleConfig, trace } from "../testing/ticketing-run-fixture.js";
import { startDashboard } from "./start-dashboard.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-dashboard-"));
const runDirectory = path.join(scratch, "ticketing-run");
const emptyDirectory = path.join(scratch, "empty");
const corruptRun = path.join(scratch, "corrupt-run");
const toolRun = path.join(scratch, "tool-run");
const kindsRun = path.join(scratch, "kinds-run");
const screenshots = path.join(repositoryRoot, "runs", "dashboard-screenshots");
const servers: FakeChatServer[] = [];
const ITERATIONS = 3;
let browser: Browser | undefined;
let dashboard: ListeningApp | undefined;

before(async () => {
  mkdirSync(screenshots, { recursive: true });
  mkdirSync(emptyDirectory);
  // A corrupt run: a configuration that is not JSON, one stage marker, and a store that is not SQLite.
  mkdirSync(path.join(corruptRun, "stages"), { recursive: true });
  writeFileSync(path.join(corruptRun, "config.json"), "{ half");
  writeFileSync(path.join(corruptRun, "store.sqlite"), "this is not a database, it only has the name of one".repeat(100));
  // An imported-style run whose one episode calls a tool (the tiny policy seldom does), for the conversation view.
  mkdirSync(toolRun);
  writeFileSync(path.join(toolRun, "config.json"), "{}");
  const store = openTrajectoryStore(path.join(toolRun, "store.sqlite"));
  store.finishEpisode({ environment: "tau2-airline", taskId: "7", trial: 0 }, {
    environment: "tau2-airline",
    taskId: "7",
    trial: 0,
    termination: "agent_stop",
    messages: [
      { role: "user", content: "Cancel reservation ABC123 please." },
      { role: "assistant", content: null, tool_calls: [{ id: "call-1", type: "function", function: { name: "cancel_reservation", arguments: '{"reservation_id":"ABC123"}' } }] },
      { role: "tool", tool_call_id: "call-1", content: '{"status":"cancelled"}' },
      { role: "assistant", content: "Done: ABC123 is cancelled." },
    ],
    reward: { reward: 0.5, success: false, breakdown: { DB: 1, COMMUNICATE: 0 } },
  });
  store.close();
  // A run whose target names kinds of task (as TRACE-mini's families): its evaluation and two methods' results.
  const kinds = openRunDirectory(kindsRun);
  kinds.create();
  writeFileSync(kinds.configFile, "{}");
  const counts = (passed: number, total: number) => ({ passed, total });
  kinds.writeEvaluationResults({
    // A graded reward (as ToolSandbox's similarity): its mean is not the pass rate, so the tables show it too.
    domains: [{ domain: "mini", base: counts(3, 10), trace: counts(6, 10), meanReward: { base: 0.35, trace: 0.62 }, groups: { composite: { base: counts(0, 4), trace: counts(1, 4) }, payment: { base: counts(3, 6), trace: counts(5, 6) } } }],
    overall: { base: counts(3, 10), trace: counts(6, 10) },
    capabilities: [],
    routing: [],
  });
  for (const [method, seed, composite, payment] of [["base", 0, 0, 3], ["trace", 0, 1, 5], ["trace", 1, 3, 6]] as const) {
    const domain = { domain: "mini", passed: composite + payment, total: 10, meanReward: (composite + payment) / 10 + 0.05, groups: { composite: counts(composite, 4), payment: counts(payment, 6) } };
    mkdirSync(path.dirname(kinds.compareResultFile(seed, method)), { recursive: true });
    writeFileSync(
      kinds.compareResultFile(seed, method),
      JSON.stringify({ method, label: method === "base" ? "Base agent" : "TRACE", group: method === "base" ? "baseline" : "trace", seed, domains: [domain], budget: { limit: 64, spent: method === "base" ? 0 : 64, evaluation: 10 }, curve: [{ episodes: 0, score: 0.3 }], snapshots: [], notes: [] }),
    );
  }
  dashboard = await startDashboard({ runs: [runDirectory, emptyDirectory, corruptRun, toolRun, kindsRun], port: 0 });
  browser = await puppeteer.launch({ executablePath: process.env.TRACE_CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage"] });
});

after(async () => {
  await browser?.close();
  await dashboard?.close();
  await Promise.all(servers.map((server) => server.close()));
  if (process.env.TRACE_KEEP_SCRATCH === undefined) rmSync(scratch, { recursive: true, force: true });
});

/** The value of a JavaScript expression in the page (page-side code is written as text: this file compiles for Node). */
async function evaluate<T>(page: Page, expression: string): Promise<T> {
  return (await page.evaluate(expression)) as T;
}

/** Waits until a JavaScript expression is true in the page. */
async function waitFor(page: Page, expression: string, timeout = 15_000): Promise<void> {
  await page.waitForFunction(expression, { timeout, polling: 50 });
}

/** Goes to `#/<run>/<view>?<query>` and waits until the page has rendered that view (charts included) after the navigation. */
async function show(page: Page, hash: string): Promise<void> {
  const view = /^#\/\d+\/([a-z]+)/.exec(hash)![1]!;
  const since = await evaluate<number>(page, `location.hash = ${JSON.stringify(hash)}, Date.now()`);
  await waitFor(page, `(() => { const main = document.getElementById("view"); return main.dataset.view === ${JSON.stringify(view)} && main.dataset.hash === ${JSON.stringify(hash)} && Number(main.dataset.ready) >= ${since - 5} && [...document.querySelectorAll(".chart")].every((chart) => chart.dataset.rendered === "true"); })()`);
}

/** The number of newline-terminated lines of a file (0 while it does not exist). */
function completeLines(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, "utf8").split("\n").length - 1;
}

/** Polls `condition` every 5 ms until it holds; fails naming `what` after `timeout` milliseconds. */
async function until(condition: () => boolean, timeout: number, what: string): Promise<void> {
  const deadline = Date.now() + timeout;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function snap(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
}

/** The text of every cell of a table, row by row. */
function cells(page: Page, selector: string): Promise<string[][]> {
  return evaluate(page, `[...document.querySelectorAll(${JSON.stringify(`${selector} tbody tr`)})].map((row) => [...row.querySelectorAll("td")].map((cell) => cell.textContent.trim()))`);
}

const text = (page: Page, selector: string) => evaluate<string>(page, `document.querySelector(${JSON.stringify(selector)}).textContent.trim()`);
const count = (page: Page, selector: string) => evaluate<number>(page, `document.querySelectorAll(${JSON.stringify(selector)}).length`);
const fixed = (value: number | null | undefined, digits = 3) => (typeof value === "number" ? value.toFixed(digits) : "–");
const REWARD_POINTS = '[data-metric="rewardMean"] .mark-symbol path';

/**
 * What the run on the example target module did, from its files (the dashboard aside): rollouts on the 3 train tasks,
 * the analyst read each task's instructions, the generator was shown the target's tool schemas and policy, the kept
 * environment is generated, GRPO's sampled groups are exported per iteration, evaluation ran on the 3 test tasks.
 */
async function assertOwnTargetRun(stdout: string, analystServer: FakeChatServer, generatorServer: FakeChatServer): Promise<void> {
  assert.match(stdout, /analysis and training on 3 train tasks, evaluation on 3 test tasks/);
  const store = openTrajectoryStore(path.join(runDirectory, "store.sqlite"));
  const episodes = store.listEpisodes({ environment: "ticketing", status: "finished" });
  store.close();
  assert.deepEqual(episodes.map((episode) => episode.taskId).sort(), ["t01", "t02", "t03"]);
  assert.ok(analystServer.received.some((request) => /^\[task\] You are Alice Park/m.test(firstContent(request))));
  const generation = generatorServer.received.map((request) => JSON.stringify(request.body.messages)).join("\n");
  assert.match(generation, /find_customer/);
  assert.match(generation, /create_ticket/);
  assert.match(generation, /Acme's ticketing desk/);
  const index = JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: { capability: string; source: string }[] };
  assert.deepEqual(index.environments.map((entry) => [entry.capability, entry.source]), [["customer_identification", "generated"]]);
  // GRPO's sampled groups are in the run's store, tagged, and `trace export --training` writes them out.
  const trainingOut = path.join(scratch, "training-episodes.jsonl");
  const exportedTraining = await trace(["export", runDirectory, "--training", "customer_identification", "--format", "jsonl", "--out", trainingOut]);
  assert.equal(exportedTraining.code, 0, exportedTraining.stdout + exportedTraining.stderr);
  const sampled = readFileSync(trainingOut, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { adapter: string; iteration: number; group: number; member: number; environment: string; messages: unknown[] });
  const keys = sampled.map((episode) => [episode.adapter, episode.iteration, episode.group, episode.member]);
  // Iteration 1 is 2 groups × 2 samples (a later iteration may add a dynamic-sampling round); the export is the store's.
  assert.deepEqual(keys.filter((key) => key[1] === 1), [0, 1].flatMap((group) => [0, 1].map((member) => ["customer_identification", 1, group, member])), "1 iteration × 2 groups × 2 samples");
  assert.deepEqual([...new Set(keys.map((key) => key[1]))], Array.from({ length: ITERATIONS }, (_, index) => index + 1));
  const stored = openTrajectoryStore(path.join(runDirectory, "store.sqlite"));
  const inStore = stored.training.list({ adapter: "customer_identification" }).map((episode) => [episode.adapter, episode.iteration, episode.group, episode.member]);
  stored.close();
  assert.deepEqual(keys, inStore);
  assert.ok(sampled.every((episode) => episode.environment === "synthetic-customer_identification" && episode.messages.length > 1));
  const results = JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as { domains: { domain: string; trace: { total: number }; base: { total: number } }[] };
  assert.deepEqual(results.domains.map((domain) => [domain.domain, domain.trace.total, domain.base.total]), [["ticketing", 3, 3]], "evaluation on the 3 test tasks");
}

test("the dashboard follows a trace run live and shows each view's real numbers; bad runs show a message", { timeout: 300_000 }, async () => {
  const page = await browser!.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  await page.goto(`${dashboard!.origin}/`);

  // Before the run exists: a clear message.
  await show(page, "#/0/stages");
  assert.match(await text(page, '[data-testid="error"]'), /ticketing-run is not a run directory: no such directory/);

  const { analystServer, generatorServer, endpoints } = await scriptedEndpoints(servers);
  const config = ticketingModuleConfig(endpoints, {
    training: { ...small.training, iterations: ITERATIONS },
    compare: { methods: ["base", "trace"], seeds: [0], curvePoints: 1 },
  });
  const configFile = path.join(scratch, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const running = startTrace(["run", configFile, "--run-dir", runDirectory]);
  try {
    // A half-written run: the stages still to come are named.
    await waitFor(page, `[...document.querySelectorAll('[data-testid="notice"]')].some((notice) => notice.textContent.includes("stages not finished yet"))`, 60_000);
    await snap(page, "stages-while-running");

    // Training: the reward curve gains a point while GRPO writes an iteration. The run is held (SIGSTOP) as soon as
    // its first iteration is written, so the page sees a part of the curve however fast iterations come on this
    // machine; once the page shows exactly that part, the run goes on and the page must show the next point arrive.
    await show(page, "#/0/training");
    const metricsFile = path.join(runDirectory, "adapters", "customer_identification", "metrics.jsonl");
    await until(() => completeLines(metricsFile) >= 1, 120_000, "GRPO's first iteration in metrics.jsonl");
    running.child.kill("SIGSTOP");
    const written = completeLines(metricsFile);
    assert.ok(written < ITERATIONS, `every iteration (${written}) was written before the run could be held`);
    await waitFor(page, `document.querySelectorAll(${JSON.stringify(REWARD_POINTS)}).length >= ${written}`, 30_000);
    assert.equal(await count(page, REWARD_POINTS), written, "the page shows the iterations written so far");
    running.child.kill("SIGCONT");
    await waitFor(page, `document.querySelectorAll(${JSON.stringify(REWARD_POINTS)}).length > ${written}`, 60_000);
    await snap(page, "training-while-running");
  } finally {
    running.child.kill("SIGCONT");
  }

  const result = await running.finished;
  assert.equal(result.code, 0, result.stdout + result.stderr);
  await assertOwnTargetRun(result.stdout, analystServer, generatorServer);
  const run = openRunDirectory(runDirectory);
  const store = openTrajectoryStore(run.storeFile);
  const evaluationStore = openTrajectoryStore(run.evaluationStoreFile);
  try {
    // Stages: every stage done with its marker's summary.
    await show(page, "#/0/stages");
    const stageRows = await cells(page, '[data-testid="stages-table"]');
    assert.deepEqual(
      stageRows.map((row) => [row[0], row[1], row[5]]),
      PIPELINE_STAGES.map((stage) => [stage, "done", run.readStageMarker(stage)!.summary]),
    );
    await snap(page, "stages");

    // Rollouts: the store's episodes and rewards; one episode's conversation and reward breakdown.
    await show(page, "#/0/rollouts");
    const episodes = store.listEpisodes();
    assert.match(await text(page, '[data-testid="episode-count"]'), new RegExp(`^${episodes.length} episodes`));
    assert.deepEqual(
      (await cells(page, '[data-testid="episodes-table"]')).map((row) => [row[1], row[3]]),
      episodes.map((episode) => [episode.taskId, fixed(episode.reward)]),
    );
    await snap(page, "rollouts");
    await page.click('[data-testid="episodes-table"] [data-testid="episode-link"]');
    await page.waitForSelector('[data-testid="episode-key"]');
    const first = episodes[0]!;
    assert.equal(await text(page, '[data-testid="episode-key"]'), `${first.environment} / ${first.taskId} / trial ${first.trial}`);
    assert.equal(await count(page, '[data-testid="message"]'), first.messages!.length);
    const toolCalls = first.messages!.reduce((sum, message) => sum + (message.role === "assistant" ? (message.tool_calls?.length ?? 0) : 0), 0);
    assert.equal(await count(page, '[data-testid="tool-call"]'), toolCalls);
    assert.deepEqual(await cells(page, '[data-testid="reward-breakdown"]'), Object.entries(first.rewardInfo!.breakdown).map(([name, value]) => [name, fixed(value)]));
    await snap(page, "episode");

    // Analysis: Cov and Δ of capability_scores.json, the status, and a click from the capability to a LACKING trajectory.
    await show(page, "#/0/analysis");
    const scores = JSON.parse(readFileSync(path.join(runDirectory, "analysis", "capability_scores.json"), "utf8")) as { capabilities: { skill: string; mean_cov: number; std_cov: number; mean_delta: number; std_delta: number; status: string; kept_in_resamples: number }[] };
    const capabilityRows = await cells(page, '[data-testid="capabilities-table"]');
    const names = await evaluate<string[]>(page, `[...document.querySelectorAll('[data-testid="capability-name"]')].map((name) => name.textContent)`);
    assert.deepEqual(
      capabilityRows.map((row, index) => [names[index], row[1], row[2], row[4], row[5]]),
      scores.capabilities.map((capability) => {
        const share = capability.kept_in_resamples;
        const resamples = `${(100 * share).toFixed(1)}%${share > 0.1 && share < 0.9 ? " (marginal)" : ""}`;
        return [capability.skill, `${fixed(capability.mean_cov)} ± ${fixed(capability.std_cov)}`, `${fixed(capability.mean_delta)} ± ${fixed(capability.std_delta)}`, capability.status, resamples];
      }),
    );
    const lacking = store.listLabels({ capability: scores.capabilities[0]!.skill }).filter((label) => label.label === "LACKING" && store.getEpisode(label)?.success !== true);
    assert.ok(lacking.length > 0, "the scripted analyst labels every failed trajectory LACKING");
    assert.equal(await text(page, '[data-testid="lacking-count"]'), String(lacking.length));
    await snap(page, "analysis");
    await page.click('[data-testid="capabilities-table"] [data-testid="episode-link"]');
    await page.waitForSelector('[data-testid="episode-key"]');
    const key = await text(page, '[data-testid="episode-key"]');
    const clicked = lacking.find((label) => key === `${label.environment} / ${label.taskId} / trial ${label.trial}`);
    assert.ok(clicked !== undefined, `${key} is one of the capability's LACKING failed trajectories`);
    assert.equal(await text(page, '[data-testid="episode-reward"]'), fixed(store.getEpisode(clicked)!.reward));

    // Environments: calibration statistics, the gates of the kept attempt, the reward histogram, sampled episodes.
    await show(page, "#/0/environments");
    const entry = run.readEnvironmentIndex().environments[0]!;
    const calibrationRow = (await cells(page, '[data-testid="calibration-table"]'))[0]!;
    assert.deepEqual([calibrationRow[0], calibrationRow[2], calibrationRow[5]], [fixed(entry.calibration!.meanReward), fixed(entry.calibration!.rewardStd), `${entry.calibration!.seeds} × ${entry.calibration!.samples}`]);
    const report = run.readEnvironmentReport(entry.capability);
    const kept = report.attempts.find((attempt) => attempt.attempt === report.bestAttempt)!;
    const gates = (kept.validation as { gates: { name: string; passed: boolean }[] }).gates;
    assert.deepEqual((await cells(page, '[data-testid="gates-table"]')).map((row) => [row[0], row[1]]), gates.map((gate) => [gate.name, gate.passed ? "pass" : "fail"]));
    const calibrationRewards = (kept.calibration as { groups: { rewards: number[] }[] }).groups.flatMap((group) => group.rewards);
    assert.equal(await count(page, '[data-chart="histogram"] .mark-rect path'), new Set(calibrationRewards.map((reward) => Math.min(19, Math.floor(reward / 0.05)))).size, "one bar per occupied bin");
    await snap(page, "environments");

    // Training: one point per iteration of metrics.jsonl, and the sampled episodes of an iteration.
    await show(page, "#/0/training");
    const metrics = readFileSync(path.join(run.adapterDirectory(entry.capability), "metrics.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as { iteration: number; rewardMean: number; rewardStd: number });
    assert.equal(metrics.length, ITERATIONS);
    assert.equal(await count(page, REWARD_POINTS), ITERATIONS);
    assert.deepEqual((await cells(page, '[data-testid="iterations-table"]')).map((row) => row[1]), metrics.map((row) => `${fixed(row.rewardMean)} ± ${fixed(row.rewardStd)}`));
    await snap(page, "training");
    await page.click('[data-testid="iteration-rollouts"]');
    await waitFor(page, `document.getElementById("view").dataset.view === "rollouts" && document.querySelector('[data-testid="episodes-table"]') !== null`);
    const sampled = store.training.list({ adapter: entry.capability, iteration: 1 });
    assert.equal(sampled.length, small.training.groups * small.training.samples);
    await waitFor(page, `document.querySelector('[data-testid="episode-count"]').textContent.startsWith("${sampled.length} episodes")`);
    assert.deepEqual(
      (await cells(page, '[data-testid="episodes-table"]')).map((row) => [row[1], row[2], row[3], row[5], row[7]]),
      sampled.map((episode) => [String(episode.iteration), String(episode.group), String(episode.member), episode.kept ? "kept" : "dropped", fixed(episode.reward)]),
    );
    await snap(page, "training-rollouts");

    // Routing and evaluation: tasks per route, pass counts, base vs TRACE per task.
    await show(page, "#/0/routing");
    const routing = run.readRoutingFile();
    assert.deepEqual(
      (await cells(page, '[data-testid="routes-table"]')).map((row) => [row[0], row[3]]),
      routing.options.map((option) => [option.label, String(routing.decisions.filter((decision) => decision.label === option.label).length)]),
    );
    const results = JSON.parse(readFileSync(run.evaluationResultsFile, "utf8")) as { overall: { base: { passed: number; total: number }; trace: { passed: number; total: number } } };
    assert.deepEqual((await cells(page, '[data-testid="evaluation-table"]')).at(-1), ["overall", `${results.overall.base.passed}/${results.overall.base.total}`, `${results.overall.trace.passed}/${results.overall.trace.total}`]);
    const traceEpisodes = evaluationStore.listEpisodes({ environment: "ticketing", status: "finished" });
    assert.deepEqual(
      (await cells(page, '[data-testid="tasks-table"]')).map((row) => [row[1], row[3]]).sort(),
      traceEpisodes.map((episode) => [episode.taskId, fixed(episode.reward)]).sort(),
    );
    await snap(page, "routing");

    // Comparison: the methods' pass rates from their result.json, and the curves.
    await show(page, "#/0/comparison");
    const methodRows = await cells(page, '[data-testid="methods-table"]');
    assert.deepEqual(
      methodRows.map((row) => [row[1], row[3]!.split(" ")[0]]),
      ["base", "trace"].map((method) => {
        const record = JSON.parse(readFileSync(run.compareResultFile(0, method), "utf8")) as { domains: { passed: number; total: number }[] };
        const passed = record.domains.reduce((sum, domain) => sum + domain.passed, 0);
        const total = record.domains.reduce((sum, domain) => sum + domain.total, 0);
        return [method, `${((100 * passed) / total).toFixed(1)}%`];
      }),
    );
    assert.ok((await count(page, '[data-chart="curves"] svg')) === 1);
    await snap(page, "comparison");
  } finally {
    store.close();
    evaluationStore.close();
  }

  // Bad input: a directory that is no run, a corrupt run; the server stays up.
  await show(page, "#/1/stages");
  assert.match(await text(page, '[data-testid="error"]'), /empty is not a run directory: it holds none of config\.json, stages\/ and store\.sqlite/);
  await show(page, "#/2/stages");
  assert.ok((await evaluate<string[]>(page, `[...document.querySelectorAll('[data-testid="notice"]')].map((notice) => notice.textContent)`)).some((notice) => notice.startsWith("config.json is not JSON")));
  await show(page, "#/2/rollouts");
  assert.match(await text(page, '[data-testid="error"]'), /corrupt-run\/store\.sqlite: cannot open: file is not a database/);
  await snap(page, "corrupt-store");
  // The conversation view: the tool call with its arguments, the tool's result, the grader's breakdown.
  await show(page, "#/3/episode?source=rollouts&environment=tau2-airline&task=7&trial=0");
  assert.deepEqual(await evaluate<string[]>(page, `[...document.querySelectorAll('[data-testid="tool-call"]')].map((call) => call.textContent.replace(/\\s+/g, " "))`), ['→ cancel_reservation({ "reservation_id": "ABC123" })']);
  assert.match(await text(page, ".message.tool"), /^tool \(call-1\)\s+\{"status":"cancelled"\}$/);
  assert.deepEqual(await cells(page, '[data-testid="reward-breakdown"]'), [["DB", "1.000"], ["COMMUNICATE", "0.000"]]);
  await snap(page, "episode-with-tool-call");
  // Pass rates per kind of task: base and TRACE in the evaluation, every method in the comparison (mean ± sd).
  await show(page, "#/4/routing");
  assert.deepEqual(await cells(page, '[data-testid="evaluation-kinds-table"]'), [
    ["mini", "composite", "0/4", "1/4"],
    ["mini", "payment", "3/6", "5/6"],
  ]);
  assert.deepEqual(await cells(page, '[data-testid="evaluation-table"]'), [
    ["mini", "3/10", "6/10", "0.350", "0.620"],
    ["overall", "3/10", "6/10", "", ""],
  ]);
  await show(page, "#/4/comparison");
  assert.deepEqual(await cells(page, '[data-testid="kinds-table"]'), [
    ["Base agent", "0.0% ± 0.0%", "50.0% ± 0.0%"],
    ["TRACE", "50.0% ± 35.4%", "91.7% ± 11.8%"],
  ]);
  assert.deepEqual(await cells(page, '[data-testid="rewards-table"]'), [
    ["Base agent", "0.350 ± 0.000"],
    ["TRACE", "0.800 ± 0.212"],
  ]);
  // TRACE against each method, paired by seed: the base ran seed 0 only (6/10 against 3/10).
  assert.deepEqual(await cells(page, '[data-testid="paired-table"]'), [["Base agent", "+30.0 ± 0.0", "0: +30.0", "1 / 0 of 1"]]);
  await snap(page, "kinds");
  const health = await fetch(`${dashboard!.origin}/api/runs/0/stages`);
  assert.equal(health.status, 200, "the server is still up");
  assert.deepEqual(pageErrors, []);
});
