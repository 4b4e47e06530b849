import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadPipelineConfig, parsePipelineConfig } from "./pipeline-config.js";
import { PipelineConfigError } from "./pipeline-config-error.js";

const minimal = { name: "x", model: {}, target: { dataDirectory: "data", domains: ["airline"] }, environments: { map: {} } };

test("defaults are applied and paths resolved", () => {
  const config = parsePipelineConfig(minimal, "c.json");
  assert.equal(config.runDirectory, path.resolve("runs/x"));
  assert.equal(config.model.path, path.resolve("runs/x/model"));
  assert.equal(config.target.dataDirectory, path.resolve("data"));
  assert.equal(config.training.iterations, 40);
  assert.equal(config.training.learningRate, 1e-5);
  assert.equal(config.analysis.labeler, "reference");
});

test("the offline example configuration validates", () => {
  const config = loadPipelineConfig(path.resolve("configs/offline-tiny.json"));
  assert.deepEqual(config.target.domains, ["airline", "retail"]);
  assert.equal(config.environments.map["correct_write_arguments"], "tool_calling_precision");
});

test("errors name every offending field", () => {
  assert.throws(
    () => parsePipelineConfig({ ...minimal, target: { dataDirectory: "data", domains: ["telecom"], trials: 0 }, extra: 1 }, "c.json"),
    (error: unknown) =>
      error instanceof PipelineConfigError &&
      error.issues.some((issue) => issue.startsWith("target.domains.0:")) &&
      error.issues.some((issue) => issue.startsWith("target.trials:")) &&
      /extra/.test(error.message) &&
      error.message.startsWith("c.json: "),
  );
});

test("a missing file and a file that is not JSON are configuration errors", () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), "trace-config-"));
  assert.throws(() => loadPipelineConfig(path.join(directory, "none.json")), PipelineConfigError);
  writeFileSync(path.join(directory, "bad.json"), "{");
  assert.throws(() => loadPipelineConfig(path.join(directory, "bad.json")), /not JSON/);
});
