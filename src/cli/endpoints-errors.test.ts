/**
 * Bad input to `trace run` with endpoint roles, each answered by one line naming the problem, with nothing collected
 * lost: an undefined role, a missing API-key variable, an unreachable endpoint, an analyst replying junk, a generator
 * that never produces a valid module (the capability is skipped and reported), a run directory of another
 * configuration.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer } from "../testing/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { minimalModuleSource } from "../testing/sandbox-test-modules.js";
import { tau2DataDirectory } from "../testing/shared-data.js";
import { findFreePort } from "../worker/free-port.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-endpoint-errors-"));
const servers: FakeChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(scratch, { recursive: true, force: true });
});

function trace(args: string[], environment: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: environment });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The one `trace: …` line the CLI prints for a known error. */
function errorLine(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => line.startsWith("trace: "));
  assert.equal(lines.length, 1, stderr);
  return lines[0]!;
}

const configFile = (name: string, config: unknown): string => {
  const file = path.join(scratch, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  return file;
};

test("configuration errors: an undefined role and a missing API-key variable stop before anything runs", async () => {
  const run = path.join(scratch, "never-started");
  const undefinedRole = configFile("undefined-role", { name: "x", model: {}, target: { dataDirectory: tau2DataDirectory() }, roles: { analyst: "judge" }, analysis: { labeler: "llm" } });
  const first = await trace(["run", undefinedRole, "--run-dir", run]);
  assert.equal(first.code, 1);
  assert.match(errorLine(first.stderr), /roles\.analyst: endpoint "judge" is not defined in endpoints \(defined: none\)/);
  const missingKey = configFile("missing-key", {
    name: "x",
    model: {},
    target: { dataDirectory: tau2DataDirectory() },
    endpoints: { judge: { url: "http://127.0.0.1:9/v1", model: "m", apiKeyEnv: "TRACE_TEST_UNSET_KEY" } },
    roles: { analyst: "judge" },
    analysis: { labeler: "llm" },
  });
  const environment = { ...process.env };
  delete environment.TRACE_TEST_UNSET_KEY;
  const second = await trace(["run", missingKey, "--run-dir", run], environment);
  assert.equal(second.code, 1);
  assert.equal(errorLine(second.stderr), "trace: endpoints.judge.apiKeyEnv: environment variable TRACE_TEST_UNSET_KEY is not set (needed by the analyst role)");
  assert.equal(existsSync(run), false, "nothing was started or written");
});

test("an unreachable user endpoint, an analyst replying junk and a generator that never passes: one line each, nothing collected lost", { timeout: 600_000 }, async () => {
  const run = path.join(scratch, "run");
  const unreachable = `http://127.0.0.1:${await findFreePort()}/v1`;
  const user = await startFakeChatServer((request, res) => {
    const spoken = (request.body.messages as { role: string }[]).filter((message) => message.role === "assistant").length;
    sendJson(res, 200, chatBody({ content: spoken === 0 ? "I need to change my flight." : "###STOP###" }));
  });
  const junkAnalyst = await startFakeChatServer((request, res) => {
    const prompt = (request.body.messages as { content: string }[])[0]?.content ?? "";
    if (prompt.includes("capability discovery agent")) return sendJson(res, 200, chatBody({ content: JSON.stringify({ candidates: [{ name: "request_tracking", description: "Tracks the request.", example_trajectories: [] }] }) }));
    sendJson(res, 200, chatBody({ content: "Sorry, I would rather not label these." }));
  });
  const analyst = await startFakeChatServer((request, res) => {
    const prompt = (request.body.messages as { content: string }[])[0]?.content ?? "";
    const labels = Object.fromEntries([...prompt.matchAll(/^### (\S+) — (FAILED|PASSED)/gm)].map((match) => [match[1]!, { request_tracking: match[2] === "FAILED" ? "LACKING" : "PRESENT" }]));
    sendJson(res, 200, chatBody({ content: JSON.stringify({ labels }) }));
  });
  const brokenGenerator = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "```ts\n" + minimalModuleSource({ generate: "Math.random();" }) + "```" })));
  servers.push(user, junkAnalyst, analyst, brokenGenerator);
  const config = (userUrl: string, analystUrl: string) => ({
    name: "errors",
    model: { initTiny: { seed: 0, maxPositions: 16384 } },
    endpoints: { simulator: { url: userUrl, model: "user", maxConcurrency: 2, timeoutSeconds: 5 }, analyst: { url: analystUrl, model: "analyst" }, generator: { url: brokenGenerator.baseUrl, model: "generator" } },
    roles: { user: "simulator", analyst: "analyst", generator: "generator" },
    target: { dataDirectory: tau2DataDirectory(), domains: ["airline"], tasksPerDomain: 2, user: "llm", maxSteps: 3, maxTokens: 8, concurrency: 2 },
    analysis: { labeler: "llm", runs: 1, batchSize: 2, maxAttempts: 2 },
    environments: { source: "generated", maxAttempts: 2, gateSeeds: 3, validationSeeds: [0] },
  });

  // 1. The user simulator cannot be reached: the episodes are errors, not reward 0, and the stage stops.
  const unreachableRun = await trace(["run", configFile("unreachable", config(unreachable, junkAnalyst.baseUrl)), "--run-dir", run]);
  assert.equal(unreachableRun.code, 1, unreachableRun.stdout + unreachableRun.stderr);
  assert.match(errorLine(unreachableRun.stderr), /^trace: 2 episodes of tau2-airline failed with errors \(e\.g\. EpisodeEndpointError: the user simulator's endpoint failed: ChatConnectionError: .*\); they are not graded/);
  let store = openTrajectoryStore(path.join(run, "store.sqlite"));
  assert.deepEqual(store.listEpisodes({}).map((episode) => episode.status), ["failed", "failed"]);
  store.close();

  // 2. The user answers now (another port, same model: the run directory is resumed); the analyst replies junk.
  const junkRun = await trace(["run", configFile("junk", config(user.baseUrl, junkAnalyst.baseUrl)), "--run-dir", run]);
  assert.equal(junkRun.code, 1, junkRun.stdout + junkRun.stderr);
  assert.match(errorLine(junkRun.stderr), /^trace: analysis: 2 trajectory-runs got no valid labels from the analyst \(e\.g\. airline:\d: .*\); the labels obtained are kept — rerun the same command to retry the rest$/);
  store = openTrajectoryStore(path.join(run, "store.sqlite"));
  assert.deepEqual(store.listEpisodes({}).map((episode) => episode.status), ["finished", "finished"], "the errored episodes were redone");
  store.close();

  // 3. A good analyst; the generator never passes the gates: the capability is skipped and reported, not trained.
  const skippedRun = await trace(["run", configFile("skipped", config(user.baseUrl, analyst.baseUrl)), "--run-dir", run, "--until", "synthesize"]);
  assert.equal(skippedRun.code, 0, skippedRun.stdout + skippedRun.stderr);
  assert.match(skippedRun.stdout, /\[2\/8 rollout\] skipped/);
  assert.match(skippedRun.stdout, /request_tracking: skipped \(no environment passed; see environments\/request_tracking\/report\.json\)/);
  const index = JSON.parse(readFileSync(path.join(run, "environments", "index.json"), "utf8")) as { environments: unknown[]; skipped: { capability: string; reason: string }[] };
  assert.deepEqual(index.environments, []);
  assert.equal(index.skipped[0]?.capability, "request_tracking");
  assert.match(index.skipped[0]?.reason ?? "", /in 2 attempts; last: .*nondeterminism/);
  assert.equal(brokenGenerator.received.length, 2);

  // 4. The same directory with another user model is refused, naming the difference.
  const other = config(user.baseUrl, analyst.baseUrl);
  other.endpoints.simulator.model = "another-user";
  const refused = await trace(["run", configFile("other", other), "--run-dir", run]);
  assert.equal(refused.code, 1);
  assert.match(errorLine(refused.stderr), /holds a run of another configuration \(user endpoint model: "user" → "another-user"\); use another run directory, or --start-over/);
});
