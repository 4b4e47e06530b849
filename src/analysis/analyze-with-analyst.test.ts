import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { createChatClient } from "../models/chat-client.js";
import { startFakeChatServer } from "../testing/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { isDiscoveryRequest, labelingRequest, reply, TOY_CANDIDATES, toyLabels, writeToyStore } from "../testing/analyst-test-support.js";
import { analyzeWithAnalyst, labelingRunPrefix } from "./analyze-with-analyst.js";
import type { RunFile } from "./run-file.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-analyst-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const BASE = { model: "analyst", runs: 2, thresholds: { coverage: 0.1, gap: 0.2, minRuns: 2 }, contextTokens: 16_000, maxOutputTokens: 1_000, batchSize: 4, maxAttempts: 2, temperature: 0.7 };

describe("analyzeWithAnalyst", () => {
  test("retries invalid replies (non-JSON, unknown capability, missing trajectories) and records what never validates", async () => {
    const directory = path.join(scratch, "invalid");
    writeToyStore(path.join(directory, "store.sqlite"), 6);
    const feedback: string[] = [];
    const server = await startFakeChatServer((request, res) => {
      const messages = request.body.messages as { content: string }[];
      if (messages.length > 1) feedback.push(messages.at(-1)?.content ?? "");
      if (isDiscoveryRequest(request)) return reply(res, messages.length === 1 ? "Here are some capabilities: state tracking and politeness." : JSON.stringify(TOY_CANDIDATES));
      const labeling = labelingRequest(request);
      assert.ok(labeling, "a labeling request");
      const labels = toyLabels(labeling.keys);
      // toy:3 is never labeled: every reply leaves it out, so it ends as a recorded failure.
      delete labels["toy:3"];
      if (labeling.attempt === 1) {
        for (const entry of Object.values(labels)) entry.made_up_capability = "LACKING";
      }
      return reply(res, "```json\n" + JSON.stringify({ labels }) + "\n```");
    });
    const store = openTrajectoryStore(path.join(directory, "store.sqlite"));
    try {
      const client = createChatClient({ baseUrl: server.baseUrl, model: "analyst", maxRetries: 0 });
      const result = await analyzeWithAnalyst({ ...BASE, store, client, outDirectory: path.join(directory, "analysis") });
      assert.deepEqual(result.candidates.candidates.map((candidate) => candidate.name), ["state_tracking", "politeness"]);
      assert.ok(feedback.some((text) => text.includes("the reply holds no JSON object")), "discovery was told its reply was not JSON");
      assert.ok(feedback.some((text) => text.includes('unknown capability "made_up_capability"')));
      assert.ok(feedback.some((text) => text.includes("trajectory toy:3 is missing")));

      for (const run of [1, 2]) {
        const file = JSON.parse(readFileSync(path.join(directory, "analysis", `run_0${run}.json`), "utf8")) as RunFile;
        assert.deepEqual(file.totals, { total_failed: 2, total_passed: 3 }, "toy:3 (failed) is left out");
        assert.deepEqual(file.labels.state_tracking?.lacking_failed.sort(), ["toy:1", "toy:5"]);
        assert.deepEqual(file.failures?.map((failure) => failure.keys), [["toy:3"]]);
        assert.match(file.failures?.[0]?.error ?? "", /trajectory toy:3 is missing/);
      }
      const stored = store.listLabels();
      assert.equal(stored.length, 2 * 5 * 2, "two runs × five labeled trajectories × two capabilities");
      assert.ok(!stored.some((label) => label.taskId === "3"), "no invented labels for toy:3");
      assert.ok(stored.every((label) => label.run.startsWith(labelingRunPrefix(TOY_CANDIDATES))));

      const [stateTracking, politeness] = result.scores.capabilities;
      assert.equal(stateTracking?.skill, "state_tracking");
      assert.equal(stateTracking?.status, "kept");
      assert.equal(stateTracking?.mean_cov, 1);
      assert.equal(stateTracking?.mean_delta, 1);
      assert.equal(politeness?.status, "rejected");
      assert.ok(existsSync(path.join(directory, "analysis", "selected_capabilities.json")));
    } finally {
      store.close();
      await server.close();
    }
  });

  test("resumes: discovery is reused and only unlabeled trajectories are requested again", async () => {
    const directory = path.join(scratch, "resume");
    writeToyStore(path.join(directory, "store.sqlite"), 4);
    let labelingRequests = 0;
    let down = true;
    const server = await startFakeChatServer((request, res) => {
      if (isDiscoveryRequest(request)) return reply(res, JSON.stringify(TOY_CANDIDATES));
      const labeling = labelingRequest(request);
      assert.ok(labeling);
      labelingRequests += 1;
      // While "down", only run 1's requests succeed.
      if (down && request.body.seed !== 1000 && request.body.seed !== 1001) return reply(res, "overloaded");
      return reply(res, JSON.stringify({ labels: toyLabels(labeling.keys) }));
    });
    const store = openTrajectoryStore(path.join(directory, "store.sqlite"));
    try {
      const client = createChatClient({ baseUrl: server.baseUrl, model: "analyst", maxRetries: 0 });
      const options = { ...BASE, store, client, outDirectory: path.join(directory, "analysis"), batchSize: 1, maxAttempts: 1 };
      const first = await analyzeWithAnalyst(options);
      assert.equal(first.failures.get(1)?.length, 0);
      assert.equal(first.failures.get(2)?.length, 4);
      assert.equal(store.listLabels().length, 4 * 2);
      down = false;
      labelingRequests = 0;
      const second = await analyzeWithAnalyst(options);
      assert.equal(labelingRequests, 4, "only run 2's four trajectories are asked for again");
      assert.equal(second.failures.get(2)?.length, 0);
      assert.equal(store.listLabels().length, 2 * 4 * 2);
      assert.equal(second.scores.capabilities.find((score) => score.skill === "state_tracking")?.n_runs_passed, 2);
    } finally {
      store.close();
      await server.close();
    }
  });
});
