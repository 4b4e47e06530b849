import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { tau2DataDirectory, tau2DomainDirectory } from "../testing/shared-data.js";
import { ExportTasksNotFoundError, runExportCommand } from "./rollout-commands.js";

const run = promisify(execFile);
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-rollout-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function lastJsonLine(output: string): Record<string, unknown> {
  return JSON.parse(output.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

const realResults = () => path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");

describe("rollout CLI", { concurrency: true }, () => {
  test("trace rollout runs tasks against a fake server, writes store and config, and --json ends with the summary", async () => {
    // Policy requests carry tools; the LLM user's do not. The user says hello once, then ###STOP###.
    const server = await startFakeChatServer((request, res) => {
      const messages = request.body.messages as { role: string }[];
      if (request.body.tools !== undefined) sendJson(res, 200, chatBody({ content: "Sure, I can help with that." }));
      else sendJson(res, 200, chatBody({ content: messages.some((m) => m.role === "assistant") ? "###STOP###" : "Hi, I want to change my flight." }));
    });
    try {
      const out = path.join(scratch, "run");
      const args = [bin, "rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-url", server.baseUrl, "--agent-model", "fake-model", "--tasks", "0,1", "--trials", "1", "--temperature", "0.5", "--seed", "7", "--run-dir", out, "--json"];
      const { stdout, stderr } = await run("node", args, { encoding: "utf8" });
      const summary = lastJsonLine(stdout);
      assert.deepEqual([summary.total, summary.finished, summary.skipped, summary.failed, summary.aborted], [2, 2, 0, 0, false]);
      assert.match(stderr, /2\/2 \(100%\)/);
      const config = JSON.parse(readFileSync(path.join(out, "config.json"), "utf8")) as Record<string, unknown>;
      assert.deepEqual(config.tasks, ["0", "1"]);
      assert.equal(config.maxSteps, 50);
      assert.equal(config.seed, 7);
      assert.deepEqual(config.user, { kind: "llm", url: server.baseUrl, model: "fake-model", guidelinesDir: path.join(tau2DataDirectory(), "user_simulator"), temperature: 0 });
      const store = openTrajectoryStore(path.join(out, "store.sqlite"));
      try {
        const records = store.listEpisodes({ environment: "tau2-airline" });
        assert.deepEqual(records.map((r) => [r.taskId, r.status, r.termination, r.seed]), [["0", "finished", "user_stop", 7], ["1", "finished", "user_stop", 8]]);
      } finally {
        store.close();
      }
      const policyRequests = server.received.filter((r) => r.body.tools !== undefined);
      assert.ok(policyRequests.length >= 2 && policyRequests.every((r) => r.body.temperature === 0.5 && r.body.model === "fake-model"));
      const again = lastJsonLine((await run("node", args, { encoding: "utf8" })).stdout);
      assert.deepEqual([again.finished, again.skipped], [0, 2]);

      // Without --data-dir, the export takes the tasks and policy from the data directory config.json names.
      const exported = path.join(scratch, "rollout-export.json");
      await run("node", [bin, "export", out, "--env", "tau2-airline", "--format", "tau2", "--out", exported], { encoding: "utf8" });
      const document = JSON.parse(readFileSync(exported, "utf8")) as { tasks: { id: string }[]; simulations: unknown[]; info: { agent_info: { implementation: string }; environment_info: { policy: string } } };
      assert.deepEqual(document.tasks.map((task) => task.id), ["0", "1"]);
      assert.equal(document.simulations.length, 2);
      assert.equal(document.info.agent_info.implementation, "fake-model");
      assert.ok(document.info.environment_info.policy.length > 0);
    } finally {
      await server.close();
    }
  });

  test("trace import reports 30 episodes, 11 passed; trace export round-trips as tau2 and jsonl", async () => {
    const out = path.join(scratch, "imported");
    const imported = lastJsonLine((await run("node", [bin, "import", realResults(), "--env", "tau2-airline", "--run-dir", out, "--json"], { encoding: "utf8" })).stdout);
    assert.deepEqual(imported, { imported: 30, episodes: 30, passed: 11 });

    const tau2File = path.join(scratch, "exported.json");
    const exported = lastJsonLine((await run("node", [bin, "export", out, "--env", "tau2-airline", "--format", "tau2", "--data-dir", tau2DomainDirectory("airline"), "--out", tau2File, "--json"], { encoding: "utf8" })).stdout);
    assert.equal(exported.exported, 30);
    const document = JSON.parse(readFileSync(tau2File, "utf8")) as { simulations: unknown[]; tasks: unknown[] };
    assert.equal(document.simulations.length, 30);
    assert.ok(document.tasks.length > 0);

    // Without --data-dir or config.json, an imported run exports the tasks kept with its episodes.
    const selfContained = path.join(scratch, "exported-from-store.json");
    await run("node", [bin, "export", out, "--env", "tau2-airline", "--format", "tau2", "--out", selfContained], { encoding: "utf8" });
    const fromStore = JSON.parse(readFileSync(selfContained, "utf8")) as { simulations: { task_id: string }[]; tasks: { id: string }[] };
    assert.deepEqual(new Set(fromStore.tasks.map((task) => task.id)), new Set(fromStore.simulations.map((simulation) => simulation.task_id)));
    assert.equal(fromStore.tasks.length, 30);

    const reimported = lastJsonLine((await run("node", [bin, "import", tau2File, "--env", "tau2-airline", "--run-dir", path.join(scratch, "reimported"), "--json"], { encoding: "utf8" })).stdout);
    assert.deepEqual(reimported, { imported: 30, episodes: 30, passed: 11 });

    const jsonl = path.join(scratch, "exported.jsonl");
    const lines = lastJsonLine((await run("node", [bin, "export", out, "--env", "tau2-airline", "--format", "jsonl", "--out", jsonl, "--json"], { encoding: "utf8" })).stdout);
    assert.equal(lines.exported, 30);
    const records = readFileSync(jsonl, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { success: boolean | null });
    assert.equal(records.filter((r) => r.success === true).length, 11);
  });

  test("bad rollout input exits 1 with one line", async () => {
    const failure = await run("node", [bin, "export", path.join(scratch, "nowhere"), "--env", "tau2-airline", "--format", "tau2", "--out", path.join(scratch, "x.json")], { encoding: "utf8" }).then(
      () => assert.fail("expected a failure"),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failure.code, 1);
    assert.match(failure.stderr, /^trace: .*no store\.sqlite/);
    assert.equal(existsSync(path.join(scratch, "x.json")), false);
    const badEnv = await run("node", [bin, "import", realResults(), "--env", "tau2-telecom", "--run-dir", path.join(scratch, "bad")], { encoding: "utf8" }).then(
      () => assert.fail("expected a failure"),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(badEnv.code, 1);
    assert.match(badEnv.stderr, /unknown environment "tau2-telecom"/);
  });

  test("trace export --format tau2 finds the tasks through a trace run config, and fails in one line when nothing names them", async () => {
    // A store whose episodes were run here (no tasks kept with them).
    const runDir = path.join(scratch, "pipeline-run");
    const store = openTrajectoryStore(path.join(runDir, "store.sqlite"));
    try {
      for (const taskId of ["1", "0"]) {
        const key = { environment: "tau2-airline", taskId, trial: 0 };
        store.finishEpisode(key, { ...key, messages: [{ role: "assistant", content: "Hi! How can I help you today?" }], termination: "user_stop", reward: { reward: 0, success: false, breakdown: {} } });
      }
    } finally {
      store.close();
    }
    const exported = path.join(scratch, "pipeline-export.json");
    const exportArgs = [bin, "export", runDir, "--env", "tau2-airline", "--format", "tau2", "--out", exported];

    const missing = await run("node", exportArgs, { encoding: "utf8" }).then(
      () => assert.fail("expected a failure"),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr.trim().split("\n").length, 1);
    assert.match(missing.stderr, /^trace: cannot export tau2-airline of .*pipeline-run as a τ²-bench results file: no task for tasks "1", "0" \(no --data-dir; .*config\.json does not exist; the store keeps no tasks\); pass --data-dir/);
    assert.equal(existsSync(exported), false);

    // `trace run`'s resolved config: target.dataDirectory (τ²-bench's data/tau2) and target.domains.
    writeFileSync(path.join(runDir, "config.json"), JSON.stringify({ name: "x", model: { servedModelName: "base" }, target: { kind: "tau2", dataDirectory: tau2DataDirectory(), domains: ["airline"], maxSteps: 30, trials: 1, seed: 0 } }));
    await run("node", exportArgs, { encoding: "utf8" });
    const document = JSON.parse(readFileSync(exported, "utf8")) as { tasks: { id: string }[]; info: { max_steps: number; agent_info: { implementation: string } } };
    assert.deepEqual(document.tasks.map((task) => task.id), ["0", "1"]);
    assert.deepEqual([document.info.max_steps, document.info.agent_info.implementation], [30, "base"]);

    // A config that names data for other domains only, or a manifest of another environment, names no tasks.
    writeFileSync(path.join(runDir, "config.json"), JSON.stringify({ target: { kind: "tau2", dataDirectory: tau2DataDirectory(), domains: ["retail"] } }));
    assert.throws(
      () => runExportCommand(runDir, { env: "tau2-airline", format: "tau2", out: exported }, () => undefined),
      (error) => error instanceof ExportTasksNotFoundError && error.taskIds.join() === "1,0" && /target\.domains \["retail"\] does not include airline/.test(error.message),
    );
    writeFileSync(path.join(runDir, "config.json"), JSON.stringify({ env: "tau2-retail", dataDir: tau2DomainDirectory("retail") }));
    assert.throws(() => runExportCommand(runDir, { env: "tau2-airline", format: "tau2", out: exported }, () => undefined), /config\.json is for tau2-retail, not tau2-airline/);
    // A data directory without one of the tasks is refused too, naming it.
    const store2 = openTrajectoryStore(path.join(runDir, "store.sqlite"));
    try {
      const key = { environment: "tau2-airline", taskId: "no-such-task", trial: 0 };
      store2.finishEpisode(key, { ...key, messages: [], termination: "user_stop" });
    } finally {
      store2.close();
    }
    assert.throws(
      () => runExportCommand(runDir, { env: "tau2-airline", format: "tau2", out: exported, dataDir: tau2DomainDirectory("airline") }, () => undefined),
      (error) => error instanceof ExportTasksNotFoundError && error.taskIds.join() === "no-such-task" && /--data-dir .* lacks them/.test(error.message),
    );
  });

  test("trace rollout with a dead endpoint stores failed episodes, exits 2 and says why", async () => {
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const { port } = listener.address() as AddressInfo;
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    const out = path.join(scratch, "dead-endpoint");
    const failure = await run("node", [bin, "rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-url", `http://127.0.0.1:${port}/v1`, "--agent-model", "m", "--tasks", "0", "--run-dir", out, "--json"], { encoding: "utf8" }).then(
      () => assert.fail("expected exit code 2"),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.equal(failure.code, 2);
    const summary = lastJsonLine(failure.stdout);
    assert.deepEqual([summary.finished, summary.failed, summary.passRate], [0, 1, null]);
    assert.match(failure.stderr, /trace: 1 episode failed with errors \(not graded; rerun the same command to redo them; trace show .* lists each\): EpisodeEndpointError: the user simulator's endpoint failed: ChatConnectionError: .*ECONNREFUSED/);
    const store = openTrajectoryStore(path.join(out, "store.sqlite"));
    try {
      assert.deepEqual(store.listEpisodes().map((record) => record.status), ["failed"]);
    } finally {
      store.close();
    }
  });

  test("SIGINT stops the rollout, exits 130 and says how to resume", async () => {
    // The first policy request hangs, so the episode is in flight when the signal comes.
    let sawRequest: () => void = () => undefined;
    const requested = new Promise<void>((resolve) => (sawRequest = resolve));
    const server = await startFakeChatServer((request) => {
      if (request.body.tools !== undefined) sawRequest();
    });
    const userAnswers = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "Hi, I want to change my flight." })));
    try {
      const out = path.join(scratch, "interrupted");
      const child = spawn("node", [bin, "rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-url", server.baseUrl, "--agent-model", "m", "--user-url", userAnswers.baseUrl, "--user-model", "u", "--tasks", "0,1", "--run-dir", out], { stdio: ["ignore", "pipe", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      await requested;
      child.kill("SIGINT");
      assert.equal(await exited, 130);
      assert.match(stderr, /interrupted; 2 episodes not done\. Resume with the same command/);
      const store = openTrajectoryStore(path.join(out, "store.sqlite"));
      try {
        const summary = store.summary();
        assert.deepEqual([summary.finished, summary.failed, summary.running], [0, 0, 1]);
      } finally {
        store.close();
      }
    } finally {
      await server.close();
      await userAnswers.close();
    }
  });
});
