/**
 * End to end with every model role behind an endpoint (issue: TRACE with your own endpoints): `trace run` on τ² airline
 * tasks where the analyst, the generator and τ²'s LLM user are scripted OpenAI-compatible servers and the policy is
 * the worker's tiny model. The run is killed (SIGKILL) during analysis, during synthesis and during training, and the
 * same command resumes each time; the checks read contents: the kept capabilities are the LLM labels', the trained
 * environment is the generated module (first generation failed a gate, second passed), calibration is recorded, the
 * routing options are the generated environments, and nothing finished is redone.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ServerResponse } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import OpenAI from "openai";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer, type ReceivedRequest } from "../testing/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { minimalModuleSource } from "../testing/sandbox-test-modules.js";
import { tau2DataDirectory } from "../testing/shared-data.js";
import { createTinyCheckpoint } from "../worker/tiny-checkpoint.js";
import { startWorker } from "../worker/worker-process.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-endpoints-"));
const runDirectory = path.join(scratch, "run");
const servers: FakeChatServer[] = [];
// The analyst endpoint's key, read by the child `trace run` from its environment (and never written to the run).
process.env.TRACE_TEST_ANALYST_KEY = "secret-analyst-key";
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  if (process.env.TRACE_KEEP_SCRATCH === undefined) rmSync(scratch, { recursive: true, force: true });
});

/** What each scripted role has been asked, and whether it should hang (to kill the run while it waits). */
const script = { labelingAnswers: Number.POSITIVE_INFINITY, hangGeneration: false };
let labelingSeen = 0;

const firstContent = (request: ReceivedRequest): string => ((request.body.messages as { content: string }[])[0]?.content ?? "");

/** The analyst: a two-capability dictionary; `request_tracking` LACKING on every failed trajectory, `politeness` NA. */
function analyst(request: ReceivedRequest, res: ServerResponse): void {
  const prompt = firstContent(request);
  if (prompt.includes("capability discovery agent")) {
    const candidates = [
      { name: "request_tracking", description: "Keeps track of what the user asked for. LACKING when the request is left undone.", example_trajectories: [] },
      { name: "politeness", description: "Answers politely. LACKING when rude.", example_trajectories: [] },
    ];
    return sendJson(res, 200, chatBody({ content: JSON.stringify({ candidates }) }));
  }
  if (prompt.includes("contrastive capability labeling agent") && ++labelingSeen > script.labelingAnswers) return; // never answered
  const labels: Record<string, Record<string, string>> = {};
  for (const match of prompt.matchAll(/^### (\S+) — (FAILED|PASSED)/gm)) labels[match[1]!] = { request_tracking: match[2] === "FAILED" ? "LACKING" : "PRESENT", politeness: "NA" };
  sendJson(res, 200, chatBody({ content: JSON.stringify({ labels }) }));
}

/**
 * The module the generator's second answer holds: cancel the named reservation; an unsolved episode earns 0.5 when its
 * replies have an odd total length, so a random tiny policy's groups differ and GRPO updates the adapter.
 */
const PASSING_MODULE = minimalModuleSource({
  verify: `const partial = input.replies.join("").length % 2 === 1 ? 0.5 : 0;
    const wanted = (input.finalState.reservations as { [id: string]: { status: string } })[String(input.instance.facts.id)];
    if (wanted?.status !== "cancelled") return { reward: partial, success: false, breakdown: { cancelled: 0 } };`,
});

/** The generator: a module that fails the determinism gate, then a valid one. */
function generator(request: ReceivedRequest, res: ServerResponse): void {
  if (script.hangGeneration) return;
  const retry = (request.body.messages as unknown[]).length > 2;
  const source = retry ? PASSING_MODULE : minimalModuleSource({ generate: "Math.random();" });
  sendJson(res, 200, chatBody({ content: `\`\`\`ts\n${source}\`\`\`` }));
}

/** τ²'s user protocol: the request first, then the stop token. */
function user(request: ReceivedRequest, res: ServerResponse): void {
  const messages = request.body.messages as { role: string; content: string }[];
  const spoken = messages.filter((message) => message.role === "assistant").length;
  sendJson(res, 200, chatBody({ content: spoken === 0 ? "Hello, I need help with my reservation please." : "Thanks, that is all. ###STOP###" }));
}

interface Invocation {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Runs `trace …`; `killWhen` is checked on every output chunk and every 200 ms, and SIGKILLs the process when true. */
function trace(args: string[], killWhen?: (stdout: string) => boolean): Promise<Invocation> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const check = () => {
      if (killWhen !== undefined && child.exitCode === null && killWhen(stdout)) child.kill("SIGKILL");
    };
    const timer = setInterval(check, 200);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearInterval(timer);
      resolve({ stdout, stderr, code, signal });
    });
  });
}

/** Waits until the worker of a killed run is gone (its port and memory), up to a few seconds. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1500));
}

const requestsTo = (server: FakeChatServer, marker: string) => server.received.filter((request) => firstContent(request).includes(marker)).length;

/** The scripted endpoints and a small run on three τ² airline tasks (τ²'s LLM user, the LLM analyst, generated environments). */
async function scriptedRun(name: string): Promise<{ analystServer: FakeChatServer; generatorServer: FakeChatServer; userServer: FakeChatServer; config: Record<string, unknown> }> {
  const analystServer = await startFakeChatServer((request, res) => analyst(request, res));
  const generatorServer = await startFakeChatServer((request, res) => generator(request, res));
  const userServer = await startFakeChatServer((request, res) => user(request, res));
  servers.push(analystServer, generatorServer, userServer);
  const config = {
    name,
    // τ²'s system prompt is ~9k tokens with the tiny tokenizer.
    model: { initTiny: { seed: 0, maxPositions: 16384 } },
    endpoints: {
      analyst: { url: analystServer.baseUrl, model: "scripted-analyst", apiKeyEnv: "TRACE_TEST_ANALYST_KEY" },
      generator: { url: generatorServer.baseUrl, model: "scripted-generator" },
      simulator: { url: userServer.baseUrl, model: "scripted-user" },
    },
    roles: { analyst: "analyst", generator: "generator", user: "simulator" },
    target: { dataDirectory: tau2DataDirectory(), domains: ["airline"], tasksPerDomain: 3, user: "llm", maxSteps: 4, maxTokens: 12, concurrency: 2 },
    analysis: { labeler: "llm", runs: 2, batchSize: 1 },
    environments: {
      source: "generated",
      maxAttempts: 3,
      gateSeeds: 5,
      validationSeeds: [0],
      // A tiny random policy never solves anything: the window is opened so that the generated module is kept.
      calibration: { seeds: 2, samples: 2, minimumMeanReward: 0, minimumSuccessRate: 0, minimumRewardStd: 0, maximumAllZeroFraction: 1, maximumConstantFraction: 1, minimumInformativeFraction: 0 },
    },
    training: { iterations: 2, groups: 2, samples: 2, learningRate: 1e-4, rank: 4, maxTokens: 12, maxSteps: 2, concurrency: 4, checkpointEvery: 1, seeds: 4 },
    evaluation: { heldOutSeeds: [1000], maxTokens: 12, maxSteps: 2 },
  };
  return { analystServer, generatorServer, userServer, config };
}

test("trace run with analyst, generator and user endpoints: killed in analysis, synthesis and training, resumed, contents checked", { timeout: 900_000 }, async () => {
  const { analystServer, generatorServer, userServer, config } = await scriptedRun("endpoints-e2e");
  const configFile = path.join(scratch, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const run = (killWhen?: (stdout: string) => boolean) => trace(["run", configFile, "--run-dir", runDirectory], killWhen);

  // 1. Killed during analysis: labeling requests after the second are never answered.
  script.labelingAnswers = 2;
  const labelingBefore = () => requestsTo(analystServer, "contrastive capability labeling agent");
  const killedInAnalysis = await run((stdout) => (stdout.match(/: labeled /g) ?? []).length >= 2 && labelingBefore() >= 3);
  assert.equal(killedInAnalysis.signal, "SIGKILL", killedInAnalysis.stdout + killedInAnalysis.stderr);
  assert.ok(!existsSync(path.join(runDirectory, "stages", "analyze.json")), "analysis did not finish");
  const store = openTrajectoryStore(path.join(runDirectory, "store.sqlite"));
  const labeledBeforeKill = store.listLabels({}).length;
  const rollouts = store.listEpisodes({ environment: "tau2-airline", status: "finished" });
  store.close();
  assert.ok(labeledBeforeKill > 0, `labels of the answered batches were stored before the kill\n${killedInAnalysis.stdout}\n${killedInAnalysis.stderr}\n${JSON.stringify(analystServer.received.map((request) => request.body.messages), null, 1).slice(0, 6000)}`);
  assert.equal(rollouts.length, 3);
  // τ²'s LLM user spoke first: the task's hidden instructions are not the first user message.
  for (const episode of rollouts) assert.equal(episode.messages?.find((message) => message.role === "user")?.content, "Hello, I need help with my reservation please.");
  assert.ok(userServer.received.length >= 3, "the user simulator endpoint was used");
  assert.ok(!readFileSync(path.join(runDirectory, "config.json"), "utf8").includes("secret-analyst-key"), "API keys are never written into the run directory");
  await settle();

  // 2. Resumed, then killed during synthesis (the generator hangs on its first request).
  script.labelingAnswers = Number.POSITIVE_INFINITY;
  script.hangGeneration = true;
  const discoveryRequests = requestsTo(analystServer, "capability discovery agent");
  const labelingRequestsBefore = labelingBefore();
  const killedInSynthesis = await run(() => generatorServer.received.length >= 1);
  assert.equal(killedInSynthesis.signal, "SIGKILL", killedInSynthesis.stdout + killedInSynthesis.stderr);
  assert.match(killedInSynthesis.stdout, /\[2\/8 rollout\] skipped/);
  assert.match(killedInSynthesis.stdout, /\[3\/8 analyze\] done/);
  assert.equal(requestsTo(analystServer, "capability discovery agent"), discoveryRequests, "discovery is not redone");
  // 3 trajectories × 2 runs, one per batch: only the pairs without stored labels were asked for again.
  assert.equal(labelingBefore() - labelingRequestsBefore, 6 - labeledBeforeKill / 2, "only unlabeled (trajectory, run) pairs are requested again");
  const selected = JSON.parse(readFileSync(path.join(runDirectory, "analysis", "selected_capabilities.json"), "utf8")) as { skill: string }[];
  assert.deepEqual(selected.map((row) => row.skill), ["request_tracking"], "the kept capabilities are those of the LLM labels");
  const labelingPrompt = analystServer.received.map(firstContent).find((prompt) => prompt.includes("contrastive capability labeling agent")) ?? "";
  assert.match(labelingPrompt, /^\[task\] /m, "the analyst sees the task's instructions");
  assert.match(labelingPrompt, /^\[grader\] /m, "the analyst sees the grader's failure reasons");
  await settle();

  // 3. Resumed, then killed during training (after GRPO's first of two iterations).
  script.hangGeneration = false;
  const killedInTraining = await run((stdout) => /iteration 1\/2/.test(stdout));
  assert.equal(killedInTraining.signal, "SIGKILL", killedInTraining.stdout + killedInTraining.stderr);
  assert.match(killedInTraining.stdout, /\[4\/8 synthesize\] done/);
  const index = JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: { capability: string; source: string; module: string; calibration?: { meanReward: number } }[]; skipped: unknown[] };
  assert.deepEqual(index.environments.map((entry) => [entry.capability, entry.source, entry.module]), [["request_tracking", "generated", path.join("environments", "request_tracking", "module.ts")]]);
  assert.ok(index.environments[0]?.calibration !== undefined, "calibration statistics are recorded");
  assert.equal(readFileSync(path.join(runDirectory, index.environments[0].module), "utf8"), PASSING_MODULE, "the kept module is the generator's second answer");
  const report = JSON.parse(readFileSync(path.join(runDirectory, "environments", "request_tracking", "report.json"), "utf8")) as { done: boolean; attempts: { passed: boolean; report: string; calibration: unknown }[] };
  assert.deepEqual(report.attempts.map((attempt) => attempt.passed), [false, true]);
  assert.match(report.attempts[0]!.report, /nondeterminism/);
  assert.ok(report.attempts[1]!.calibration !== null, "the passing attempt was calibrated on the base policy");
  const generations = generatorServer.received.length;
  await settle();

  // 4. Resumed to the end.
  const finished = await run();
  assert.equal(finished.code, 0, finished.stdout + finished.stderr);
  assert.equal(generatorServer.received.length, generations, "synthesis is not redone");
  assert.match(finished.stdout, /\[5\/8 train\] done/);
  assert.match(finished.stdout, /resum/i, "GRPO resumed from its checkpoint");
  assert.ok(!/request_tracking iteration 1\/2/.test(finished.stdout), "the finished first iteration is not redone");
  const routing = JSON.parse(readFileSync(path.join(runDirectory, "eval", "routing.json"), "utf8")) as { options: { capability: string | null; model: string }[]; decisions: unknown[] };
  assert.deepEqual(routing.options.map((option) => option.capability), ["request_tracking", null], "routing options are the generated environments and none");
  assert.equal(routing.decisions.length, 3);
  assert.ok(existsSync(path.join(runDirectory, "eval", "report.md")));

  // 5. `trace serve`: the official openai client, with tools, plain and streamed; the route is reported.
  const serving = spawn(process.execPath, [bin, "serve", runDirectory, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = "";
      serving.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const found = /trace serve: (http:\/\/\S+\/v1)/.exec(output);
        if (found !== null) resolve(found[1]!);
      });
      serving.on("close", (code) => reject(new Error(`trace serve exited with ${code}: ${output}`)));
    });
    const client = new OpenAI({ baseURL: url, apiKey: "unused" });
    const tools = [{ type: "function" as const, function: { name: "get_reservation_details", description: "Reads a reservation.", parameters: { type: "object", properties: { reservation_id: { type: "string" } }, required: ["reservation_id"] } } }];
    const messages = [{ role: "user" as const, content: "Hello, I need help with my reservation please." }];
    const { data, response } = await client.chat.completions.create({ model: "endpoints-e2e", messages, tools, max_tokens: 8, temperature: 0 }).withResponse();
    assert.equal(response.headers.get("x-trace-route"), "request_tracking", "the routed adapter is reported");
    assert.equal(data.choices.length, 1);
    const stream = await client.chat.completions.create({ model: "endpoints-e2e", messages, tools, max_tokens: 8, temperature: 0, stream: true }).withResponse();
    assert.equal(stream.response.headers.get("x-trace-route"), "request_tracking");
    let streamed = "";
    for await (const chunk of stream.data) streamed += chunk.choices[0]?.delta.content ?? "";
    assert.equal(streamed, data.choices[0]?.message.content ?? "", "the streamed answer is the same completion");
  } finally {
    serving.kill("SIGTERM");
    await new Promise((resolve) => serving.once("close", resolve));
  }
});

test("trace run with the policy on a second worker standing in for vLLM: the first worker trains, adapters sync by name, the probe passes", { timeout: 600_000 }, async () => {
  const { config: scripted } = await scriptedRun("external-sampler");
  script.labelingAnswers = Number.POSITIVE_INFINITY;
  script.hangGeneration = false;
  const checkpoint = path.join(scratch, "external-model");
  await createTinyCheckpoint(checkpoint, { seed: 0, maxPositions: 16384 });
  const sampler = await startWorker({ model: checkpoint, servedModelName: "tiny-base", apiKey: "sampler-key" });
  process.env.TRACE_TEST_SAMPLER_KEY = "sampler-key";
  try {
    const run = path.join(scratch, "external-run");
    // τ²'s data with a split: train on tasks 0, 1, 3, evaluate on held-out task 4 (the shared files linked, not copied).
    const data = path.join(scratch, "tau2-split");
    mkdirSync(path.join(data, "airline"), { recursive: true });
    for (const file of ["db.json", "tasks.json", "policy.md"]) symlinkSync(path.join(tau2DataDirectory(), "airline", file), path.join(data, "airline", file));
    symlinkSync(path.join(tau2DataDirectory(), "user_simulator"), path.join(data, "user_simulator"));
    writeFileSync(path.join(data, "airline", "split_tasks.json"), JSON.stringify({ train: ["0", "1", "3"], test: ["4"] }));
    // The policy on the second worker; one labeling run, K = 4 so that GRPO's groups differ and the adapter is updated.
    const config = {
      ...scripted,
      target: { ...(scripted.target as object), dataDirectory: data, tasksPerDomain: undefined },
      model: { path: checkpoint },
      endpoints: { ...(scripted.endpoints as object), sampler: { url: sampler.baseUrl, model: "tiny-base", apiKeyEnv: "TRACE_TEST_SAMPLER_KEY" } },
      roles: { ...(scripted.roles as object), policy: "sampler" },
      analysis: { labeler: "llm", runs: 1, batchSize: 3 },
      training: { ...(scripted.training as object), samples: 4 },
    };
    const configFile = path.join(scratch, "external-config.json");
    writeFileSync(configFile, JSON.stringify(config));
    const result = await trace(["run", configFile, "--run-dir", run]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    // Every GRPO step's adapter was saved and loaded on the sampler under a versioned name; the previous one unloaded.
    const served = (await sampler.trainerClient().listModels()).map((model) => model.id);
    const versions = served.filter((name) => /^request_tracking-v\d+$/.test(name));
    assert.equal(versions.length, 1, `one version served, older ones unloaded (served: ${served.join(", ")})`);
    assert.ok(Number(versions[0]!.split("-v")[1]) >= 1, `a version after an update is served (served: ${served.join(", ")})`);
    assert.ok(served.includes("request_tracking"), "the final adapter is loaded by name for evaluation");
    assert.ok(existsSync(path.join(run, "adapters", "synced", "request_tracking-v0", "adapter_config.json")), "the initial version was synced too");
    assert.ok(existsSync(path.join(run, "adapters", "synced", versions[0]!, "adapter_config.json")));
    const metrics = readFileSync(path.join(run, "adapters", "request_tracking", "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { probeLogprobDifference: number | null; tokens: number });
    const probed = metrics.filter((entry) => entry.probeLogprobDifference !== null);
    assert.ok(probed.length > 0 || metrics.every((entry) => entry.tokens === 0), "a step that updated the adapter was probed");
    for (const entry of probed) assert.ok(entry.probeLogprobDifference! < 1e-3, `probe difference ${entry.probeLogprobDifference}`);
    // The base rollouts were sampled from the external sampler (its served name recorded by the chat client).
    const store = openTrajectoryStore(path.join(run, "store.sqlite"));
    const episodes = store.listEpisodes({ environment: "tau2-airline", status: "finished" });
    store.close();
    assert.deepEqual(episodes.map((episode) => episode.taskId).sort(), ["0", "1", "3"], "analysis and training on the train split");
    assert.match(result.stdout, /split_tasks\.json: analysis and training on 3 train tasks, evaluation on 1 test tasks/);
    // The held-out task was routed on its own conversation's first user message (the LLM user's), during evaluation.
    const routing = JSON.parse(readFileSync(path.join(run, "eval", "routing.json"), "utf8")) as { decisions: { taskId: string; capability: string | null }[] };
    assert.deepEqual(routing.decisions.map((decision) => decision.taskId).sort(), ["0", "1", "3", "4"]);
    const results = JSON.parse(readFileSync(path.join(run, "eval", "results.json"), "utf8")) as { domains: { trace: { total: number }; base: { total: number } }[] };
    assert.deepEqual([results.domains[0]!.trace.total, results.domains[0]!.base.total], [1, 1], "evaluation on the test split, base included");
  } finally {
    await sampler.stop();
  }
});
