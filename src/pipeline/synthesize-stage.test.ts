/**
 * The synthesize stage's hand-written path with `environments.calibrateHandWritten`: a TRACE-mini practice module is
 * calibrated on the base policy (here a scripted OpenAI-compatible endpoint on the `policy` role), its difficulty
 * level recorded in the environment entry, and every later load of the entry generates its worlds at that level.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { parsePipelineConfig } from "./pipeline-config.js";
import { createPipelineContext } from "./pipeline-context.js";
import { runSynthesizeStage } from "./synthesize-stage.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-synthesize-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("a hand-written module with levels is calibrated, easier while the base fails, and its entry keeps the level chosen", async () => {
  // A base policy that never acts: reward 0 at every level, so calibration walks from the initial level 2 down to 0.
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "I cannot help with that." })));
  const runDirectory = path.join(scratch, "run");
  const config = parsePipelineConfig(
    {
      name: "calibrated",
      model: { path: path.join(scratch, "model") },
      target: { kind: "mini", maxSteps: 4 },
      analysis: { labeler: "reference" },
      environments: {
        source: "hand-written",
        map: { correct_write_arguments: "mini_tool_calling_precision" },
        calibrateHandWritten: true,
        calibration: { seeds: 3, samples: 2 },
        validationSeeds: [0, 1],
      },
      endpoints: { scripted: { url: server.baseUrl, model: "base" } },
      roles: { policy: "scripted" },
    },
    "test",
    { runDirectory },
  );
  const analysis = path.join(runDirectory, "analysis", "reference");
  mkdirSync(analysis, { recursive: true });
  const selected = { skill: "correct_write_arguments", description: "Writes with the exact ids.", mean_cov: 0.5, std_cov: 0, mean_delta: 0.5, std_delta: 0, n_runs_passed: 1, n_runs_total: 1, passes_consistency: true, example_failed_cases: [], status: "kept" };
  writeFileSync(path.join(analysis, "selected_capabilities.json"), JSON.stringify([selected]));
  const lines: string[] = [];
  const context = createPipelineContext(config, (line) => lines.push(line));
  try {
    await runSynthesizeStage(context);
    const [entry] = context.run.readEnvironmentIndex().environments;
    assert.equal(entry?.difficulty, 2, "all levels fail alike: the initial level is kept");
    assert.equal(entry?.calibration?.meanReward, 0);
    assert.deepEqual([entry?.calibration?.seeds, entry?.calibration?.samples], [3, 2]);
    assert.match(lines.join("\n"), /difficulty level 2 of 0–4 \(tried 2: mean 0\.000; 1: mean 0\.000; 0: mean 0\.000\)/);
    // 3 levels × 3 seeds × 2 samples, one model call each (the policy answers in text, the user then stops).
    assert.equal(server.received.filter((request) => request.path.endsWith("/chat/completions")).length, 18);
    // A level other than the default reaches the worlds through the entry: level 4 offers four look-alike payment methods.
    const harder = await context.environment({ ...entry, difficulty: 4 });
    const methods = (instance: { state: { [key: string]: unknown } }) => Object.values(instance.state.users as { [id: string]: { payment_methods: unknown[] } })[0]!.payment_methods.length;
    assert.equal(methods(await harder.generate(0)), 4);
    assert.equal(methods(await (await context.environment({ ...entry, difficulty: 0 })).generate(0)), 2);
  } finally {
    await context.close();
    await server.close();
  }
});
