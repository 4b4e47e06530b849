import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer } from "../models/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { tau2DataDirectory, tau2DomainDirectory } from "../testing/shared-data.js";

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
      const args = [bin, "rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-url", server.baseUrl, "--agent-model", "fake-model", "--tasks", "0,1", "--trials", "1", "--temperature", "0.5", "--seed", "7", "--out", out, "--json"];
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
    } finally {
      await server.close();
    }
  });

  test("trace import reports 30 episodes, 11 passed; trace export round-trips as tau2 and jsonl", async () => {
    const out = path.join(scratch, "imported");
    const imported = lastJsonLine((await run("node", [bin, "import", realResults(), "--env", "tau2-airline", "--out", out, "--json"], { encoding: "utf8" })).stdout);
    assert.deepEqual(imported, { imported: 30, episodes: 30, passed: 11 });

    const tau2File = path.join(scratch, "exported.json");
    const exported = lastJsonLine((await run("node", [bin, "export", out, "--env", "tau2-airline", "--format", "tau2", "--data-dir", tau2DomainDirectory("airline"), "--out", tau2File, "--json"], { encoding: "utf8" })).stdout);
    assert.equal(exported.exported, 30);
    const document = JSON.parse(readFileSync(tau2File, "utf8")) as { simulations: unknown[]; tasks: unknown[] };
    assert.equal(document.simulations.length, 30);
    assert.ok(document.tasks.length > 0);

    const reimported = lastJsonLine((await run("node", [bin, "import", tau2File, "--env", "tau2-airline", "--out", path.join(scratch, "reimported"), "--json"], { encoding: "utf8" })).stdout);
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
    const badEnv = await run("node", [bin, "import", realResults(), "--env", "tau2-telecom", "--out", path.join(scratch, "bad")], { encoding: "utf8" }).then(
      () => assert.fail("expected a failure"),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(badEnv.code, 1);
    assert.match(badEnv.stderr, /unknown environment "tau2-telecom"/);
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
      const child = spawn("node", [bin, "rollout", "--env", "tau2-airline", "--data-dir", tau2DomainDirectory("airline"), "--agent-url", server.baseUrl, "--agent-model", "m", "--user-url", userAnswers.baseUrl, "--user-model", "u", "--tasks", "0,1", "--out", out], { stdio: ["ignore", "pipe", "pipe"] });
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
