/** The dashboard's HTTP app in process (no browser): views of a hand-made run directory, bad runs and bad queries. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { openRunDirectory } from "../run/run-directory.js";
import type { Trajectory } from "../spec/trajectory.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { createDashboardApp } from "./dashboard-app.js";
import { dashboardRuns } from "./dashboard-run.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-dashboard-app-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function trajectory(taskId: string, trial: number, reward: number, environment = "shop"): Trajectory {
  return { environment, taskId, trial, termination: "agent_stop", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "done" }], reward: { reward, success: reward === 1, breakdown: { state: reward } } };
}

/** A run that has rolled out, been analyzed and is training (iteration 2's metrics line half-written). */
function handMadeRun(): string {
  const root = path.join(scratch, "run");
  const run = openRunDirectory(root);
  run.create();
  writeFileSync(run.configFile, JSON.stringify({ name: "hand-made", training: { iterations: 3 } }));
  run.writeStageMarker({ stage: "rollout", startedAt: "2026-01-01T00:00:00Z", finishedAt: "2026-01-01T00:01:00Z", seconds: 60, summary: "4 episodes" });
  const store = openTrajectoryStore(run.storeFile);
  const rewards = [1, 0, 0, 1];
  rewards.forEach((reward, index) => store.finishEpisode({ environment: "shop", taskId: `t${index}`, trial: 0 }, trajectory(`t${index}`, 0, reward), { metadata: { policyUsage: { promptTokens: 5, completionTokens: 7 + index } } }));
  store.upsertLabels([0, 1, 2].map((index) => ({ environment: "shop", taskId: `t${index}`, trial: 0, capability: "lookup", run: "llm-1", label: index === 2 ? ("PRESENT" as const) : ("LACKING" as const) })));
  store.training.record([0, 1].map((member) => ({ adapter: "lookup", capability: "lookup", iteration: 1, group: 0, member, trajectory: trajectory("seed-0", member, member, "synthetic-lookup"), kept: true, advantage: member - 0.5 })));
  store.close();
  mkdirSync(path.join(root, "analysis"));
  const capability = { skill: "lookup", description: "looks up first", mean_cov: 0.5, std_cov: 0.1, mean_delta: 0.4, std_delta: 0.05, n_runs_passed: 1, n_runs_total: 1, passes_consistency: true, example_failed_cases: [], status: "kept", per_run: [{ attempt: 1, cov: 0.5, delta: 0.4, er_minus: 0.5, er_plus: 0.1, passed: true }], kept_in_resamples: 0.62 };
  const firm = { ...capability, skill: "verify", kept_in_resamples: 0.97 };
  writeFileSync(path.join(root, "analysis", "capability_scores.json"), JSON.stringify({ thresholds: { coverage: 0.1, gap: 0.2, minRuns: 1 }, runs: 1, run_files: ["run_01.json"], capabilities: [capability, firm] }));
  mkdirSync(run.adapterDirectory("lookup"), { recursive: true });
  writeFileSync(path.join(run.adapterDirectory("lookup"), "metrics.jsonl"), JSON.stringify({ iteration: 1, rewardMean: 0.5, rewardStd: 0.5, groupsKept: 1, groupsDropped: 0, loss: 0.25 }) + '\n{"iteration": 2, "rewardMe');
  return root;
}

const app = createDashboardApp(dashboardRuns([handMadeRun(), path.join(scratch, "missing"), path.join(scratch, "corrupt")]));
mkdirSync(path.join(scratch, "corrupt"));
writeFileSync(path.join(scratch, "corrupt", "store.sqlite"), "not sqlite ".repeat(200));

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await app.fetch(new Request(`http://dashboard${url}`));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test("stages: the finished stage with its marker, and the ones still missing named", async () => {
  const { status, body } = await get("/api/runs/0/stages");
  assert.equal(status, 200);
  const stages = body.stages as { stage: string; status: string; marker: { summary: string } | null }[];
  assert.deepEqual(stages.filter((row) => row.status === "done").map((row) => [row.stage, row.marker?.summary]), [["rollout", "4 episodes"]]);
  assert.deepEqual(body.notices, ["stages not finished yet: base, analyze, synthesize, train, route, evaluate"]);
});

test("rollouts: filters, a page, token counts; training episodes by adapter and iteration; one episode in full", async () => {
  const solved = await get("/api/runs/0/rollouts?success=false&limit=1&offset=1");
  assert.deepEqual([solved.body.total, (solved.body.episodes as { taskId: string; completionTokens: number }[]).map((row) => [row.taskId, row.completionTokens])], [2, [["t2", 9]]]);
  assert.equal((await get("/api/runs/0/rollouts?status=failed")).body.total, 0);
  assert.equal((await get("/api/runs/0/rollouts?status=finished&environment=shop")).body.total, 4);
  const training = await get("/api/runs/0/rollouts?source=training&adapter=lookup&iteration=1");
  assert.deepEqual((training.body.episodes as { member: number; reward: number; advantage: number }[]).map((row) => [row.member, row.reward, row.advantage]), [[0, 0, -0.5], [1, 1, 0.5]]);
  assert.deepEqual(training.body.adapters, [{ adapter: "lookup", iterations: [1] }]);
  const episode = await get("/api/runs/0/episode?environment=shop&task=t1&trial=0");
  assert.deepEqual([episode.body.reward, (episode.body.messages as unknown[]).length], [0, 2]);
  const missing = await get("/api/runs/0/episode?environment=shop&task=t9&trial=0");
  assert.equal(missing.status, 400);
  assert.match(String(missing.body.error), /no such rollouts episode in store\.sqlite/);
});

test("analysis: scores and each capability's failed trajectories labelled LACKING", async () => {
  const { body } = await get("/api/runs/0/analysis");
  assert.equal((body.scores as { capabilities: { mean_cov: number }[] }).capabilities[0]!.mean_cov, 0.5);
  assert.deepEqual((body.lacking as Record<string, { taskId: string }[]>).lookup!.map((row) => row.taskId), ["t1"], "t0 passed; t2 is PRESENT");
  assert.deepEqual(body.marginal, ["lookup"], "kept in 62% of resamples is marginal, 97% is not");
});

test("training: the complete metrics lines as curves; the line still being written waits", async () => {
  const { body } = await get("/api/runs/0/training");
  const [adapter] = body.adapters as { capability: string; iterations: unknown[]; curves: { metric: string; points: number }[]; storedIterations: { iteration: number; episodes: number }[]; problems: string[] }[];
  assert.equal(adapter!.iterations.length, 1);
  assert.deepEqual(adapter!.curves.filter((curve) => curve.points > 0).map((curve) => curve.metric), ["rewardMean", "rewardStd", "groupsKept", "groupsDropped", "loss"]);
  assert.deepEqual(adapter!.storedIterations.map((row) => [row.iteration, row.episodes]), [[1, 2]]);
  assert.deepEqual(adapter!.problems, []);
});

test("environments: a hand-written τ² environment shows its module's source", async () => {
  const root = path.join(scratch, "hand-written-run");
  const run = openRunDirectory(root);
  run.create();
  writeFileSync(run.configFile, "{}");
  run.writeEnvironmentIndex({ environments: [{ capability: "correct_write_arguments", description: "writes right", module: "tool_calling_precision", source: "hand-written", validation: [{ seed: 0, reward: 1 }] }], skipped: [{ capability: "other", reason: "no environment configured" }] });
  const local = createDashboardApp(dashboardRuns([root]));
  const body = (await (await local.fetch(new Request("http://dashboard/api/runs/0/environments"))).json()) as { environments: { source: string | null; histogram: unknown }[]; skipped: unknown[] };
  assert.match(body.environments[0]!.source ?? "", /capability: "tool_calling_precision"/);
  assert.equal(body.environments[0]!.histogram, null, "no calibration for a hand-written environment");
  assert.equal(body.skipped.length, 1);
});

test("views not reached yet say so; bad runs and bad queries answer one-line errors and the app keeps answering", async () => {
  for (const view of ["environments", "routing", "comparison"]) assert.equal(((await get(`/api/runs/0/${view}`)).body.notices as string[]).length > 0, true, view);
  const missing = await get("/api/runs/1/rollouts");
  assert.deepEqual([missing.status, missing.body.error], [422, `${path.join(scratch, "missing")} is not a run directory: no such directory`]);
  const corrupt = await get("/api/runs/2/rollouts");
  assert.equal(corrupt.status, 422);
  assert.match(String(corrupt.body.error), /corrupt\/store\.sqlite: cannot open: file is not a database/);
  assert.match(String((await get("/api/runs/0/rollouts?source=nowhere")).body.error), /^source: Invalid option/);
  assert.match(String((await get("/api/runs/7/stages")).body.error), /^no run 7 \(runs 0 … 2\)/);
  const listing = await get("/api/runs");
  // The corrupt run is listed (its stages can be read); only the views that read its store fail.
  assert.deepEqual((listing.body.runs as { problem: string | null }[]).map((run) => run.problem === null), [true, false, true]);
  assert.equal((await get("/api/runs/0/stages")).status, 200);
});

test("the page and its scripts come from the dashboard itself (no CDN)", async () => {
  const page = await (await app.fetch(new Request("http://dashboard/"))).text();
  const scripts = [...page.matchAll(/<script[^>]*src="([^"]+)"/g)].map((match) => match[1]!);
  assert.deepEqual(scripts, ["/assets/vega.min.js", "/assets/vega-lite.min.js", "/assets/vega-embed.min.js", "/assets/dashboard-client.js"]);
  for (const script of scripts) {
    const response = await app.fetch(new Request(`http://dashboard${script}`));
    assert.equal(response.status, 200, script);
    assert.ok((await response.text()).length > 1000, script);
  }
  assert.doesNotMatch(page, /https?:\/\//);
});
