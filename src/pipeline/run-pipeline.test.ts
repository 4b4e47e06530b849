import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { parsePipelineConfig } from "./pipeline-config.js";
import { configurationDifferences, RunConfigurationMismatchError, runPipeline } from "./run-pipeline.js";

const base = { name: "x", model: {}, target: { dataDirectory: "data", domains: ["airline"] } };

test("configurationDifferences names what a run depends on, not what it may change", () => {
  const recorded = parsePipelineConfig(base, "c.json", { runDirectory: "/runs/a" });
  const other = parsePipelineConfig({ ...base, model: { servedModelName: "other" }, target: { ...base.target, domains: ["retail"], tasksPerDomain: 3 }, training: { iterations: 2 } }, "c.json", { runDirectory: "/runs/a" });
  assert.deepEqual(configurationDifferences(recorded, other), ['model.servedModelName: "base" → "other"', 'target.domains: ["airline"] → ["retail"]', "target.tasksPerDomain: unset → 3"]);
  const moved = parsePipelineConfig(base, "c.json", { runDirectory: "/elsewhere/a" });
  assert.deepEqual(configurationDifferences(recorded, moved), [], "a checkpoint inside the run directory moves with it");
});

test("a run directory of another configuration is refused before anything runs, and --start-over clears it", async () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), "trace-claim-"));
  try {
    const first = parsePipelineConfig({ ...base, model: { path: "/nonexistent-model" } }, "c.json", { runDirectory: directory });
    // The first stage needs a checkpoint that does not exist: the run stops there, after claiming the directory.
    await assert.rejects(runPipeline({ config: first, log: () => undefined }), /nonexistent-model/);
    const second = parsePipelineConfig({ ...base, model: { path: "/nonexistent-model", servedModelName: "other" } }, "c.json", { runDirectory: directory });
    await assert.rejects(runPipeline({ config: second, log: () => undefined }), (error: unknown) => error instanceof RunConfigurationMismatchError && /model\.servedModelName: "base" → "other".*--start-over/.test(error.message));
    await assert.rejects(runPipeline({ config: second, log: () => undefined, startOver: true }), /nonexistent-model/);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
