/**
 * The run's retrieval router takes what it knows of each capability from the capability's world at the module's own
 * initial level, not at the level calibration chose for training: with TRACE-mini's multi-step world calibrated one
 * level down (as it was for a base of the thirtieth session), its example requests made the multi-part rule send
 * single precondition requests to the merged adapters.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { miniTargetModule } from "../envs/mini/index.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import type { CapabilityEnvironmentEntry } from "../run/environment-index.js";
import { parsePipelineConfig } from "./pipeline-config.js";
import { createPipelineContext } from "./pipeline-context.js";
import { createRunRouter } from "./route-stage.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-route-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const WORLDS: [capability: string, module: string][] = [
  ["complete_required_state_changes", "mini_multi_step_completion"],
  ["correct_write_arguments", "mini_tool_calling_precision"],
  ["avoid_unrequested_state_changes", "mini_precondition_verification"],
];

/** A run directory whose three practice worlds were calibrated to `levels` and whose adapters are recorded as trained. */
function runWithLevels(name: string, levels: readonly number[]) {
  const runDirectory = path.join(scratch, name);
  const config = parsePipelineConfig(
    {
      name,
      model: { path: path.join(scratch, "model") },
      target: { kind: "mini", families: ["precondition", "payment", "composite"] },
      analysis: { labeler: "reference" },
      environments: { source: "hand-written", map: Object.fromEntries(WORLDS), validationSeeds: [0] },
      routing: { method: "retrieval", examples: 40, multiPartSimilarity: 0.3 },
    },
    "test",
    { runDirectory },
  );
  const context = createPipelineContext(config, () => {});
  const environments: CapabilityEnvironmentEntry[] = WORLDS.map(([capability, module], index) => ({ capability, description: capability, module, source: "hand-written", validation: [], difficulty: levels[index]! }));
  context.run.writeEnvironmentIndex({ environments, skipped: [] });
  for (const [capability] of WORLDS) {
    context.run.writeTrainedAdapter({ capability, adapterPath: path.join(runDirectory, "adapters", capability), adapter: capability, iterations: 1, firstRewardMean: null, lastRewardMean: null, finishedAt: "2026-12-07T00:00:00.000Z" });
  }
  return context;
}

test("the retrieval router's examples come from each world at its own level, whatever level calibration chose", async () => {
  const target = nativeModuleRunner(miniTargetModule(["precondition", "payment", "composite"]));
  const requests: { family: string; request: string }[] = [];
  for (let seed = 50_000; seed < 50_100; seed += 1) {
    const instance = await target.generate(seed);
    requests.push({ family: typeof instance.facts.family === "string" ? instance.facts.family : "", request: instance.request });
  }
  const decisions = async (name: string, levels: readonly number[]) => {
    const context = runWithLevels(name, levels);
    try {
      const router = await createRunRouter(context);
      return await Promise.all(requests.map(async ({ request }) => (await router.route(request)).capability));
    } finally {
      await context.close();
    }
  };
  const atTargetLevel = await decisions("initial", [2, 2, 2]);
  const calibratedDown = await decisions("calibrated", [0, 2, 2]);
  assert.deepEqual(calibratedDown, atTargetLevel, "the calibrated levels do not move a single routing decision");
  const precondition = requests.flatMap(({ family }, index) => (family === "precondition" ? [calibratedDown[index]] : []));
  assert.ok(precondition.length >= 20, `${precondition.length} precondition requests among the 100`);
  assert.deepEqual(new Set(precondition), new Set(["avoid_unrequested_state_changes"]), "every single precondition request reaches the precondition adapter");
  const payment = requests.flatMap(({ family }, index) => (family === "payment" ? [calibratedDown[index]] : []));
  assert.deepEqual(new Set(payment), new Set(["correct_write_arguments"]));
});
