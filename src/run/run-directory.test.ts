import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import type { CapabilityEnvironmentEntry } from "./environment-index.js";
import type { RoutingFile } from "./routing-file.js";
import { RunArtifactError } from "./run-artifact-error.js";
import { openRunDirectory, type RunDirectory } from "./run-directory.js";

const entry: CapabilityEnvironmentEntry = {
  capability: "multi_step_completion",
  description: "finish every step",
  module: path.join("environments", "multi_step_completion", "module.ts"),
  source: "generated",
  validation: [{ seed: 0, reward: 1 }],
  calibration: { meanReward: 0.4, successRate: 0.3, rewardStd: 0.2, allZeroFraction: 0.1, allOneFraction: 0.05, seeds: 16, samples: 16 },
};

const routing: RoutingFile = {
  options: [
    { label: "A", capability: "multi_step_completion", model: "multi_step_completion", description: "finish every step" },
    { label: "B", capability: null, model: "base", description: "" },
  ],
  decisions: [{ environment: "tau2-airline", taskId: "0", label: "A", capability: "multi_step_completion", model: "multi_step_completion", logprobs: [{ label: "A", logprob: -0.1 }, { label: "B", logprob: null }], source: "label_logprobs" }],
};

describe("run directory", () => {
  let scratch: string;
  let run: RunDirectory;
  beforeEach(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "trace-run-directory-"));
    run = openRunDirectory(path.join(scratch, "run"));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  test("keeps the layout every existing run directory has", () => {
    const relative = (file: string) => path.relative(run.root, file);
    assert.deepEqual(
      [
        run.configFile,
        run.storeFile,
        run.stageMarkerFile("train"),
        run.analysisDirectory("llm"),
        run.analysisDirectory("reference"),
        run.environmentIndexFile,
        run.environmentModuleFile("cap"),
        run.trainingFile("cap"),
        run.syncedAdaptersDirectory,
        run.routingFile,
        run.evaluationStoreFile,
        run.evaluationResultsFile,
        run.evaluationReportFile,
        run.compareStoreFile,
        run.compareResultFile(2, "gepa"),
        run.baseDirectory,
        run.defaultModelDirectory,
      ].map(relative),
      [
        "config.json",
        "store.sqlite",
        "stages/train.json",
        "analysis",
        "analysis/reference",
        "environments/index.json",
        "environments/cap/module.ts",
        "adapters/cap/training.json",
        "adapters/synced",
        "eval/routing.json",
        "eval/episodes.sqlite",
        "eval/results.json",
        "eval/report.md",
        "compare/episodes.sqlite",
        "compare/seed-2/gepa/result.json",
        "base",
        "model",
      ].map((file) => file.split("/").join(path.sep)),
    );
  });

  test("stage markers, the environment index and entries, and the routing file round-trip", () => {
    assert.equal(run.readStageMarker("rollout"), undefined);
    const marker = { stage: "rollout", startedAt: "2025-01-01T00:00:00.000Z", finishedAt: "2025-01-01T00:01:00.000Z", seconds: 60, summary: "6 episodes" };
    run.writeStageMarker(marker);
    assert.deepEqual(run.readStageMarker("rollout"), marker);

    assert.deepEqual(run.readEnvironmentIndex(), { environments: [], skipped: [] });
    const index = { environments: [entry], skipped: [{ capability: "other", reason: "no environment configured (environments.map)" }] };
    run.writeEnvironmentIndex(index);
    assert.deepEqual(run.readEnvironmentIndex(), index);
    run.writeEnvironmentEntry(entry);
    assert.deepEqual(run.readEnvironmentEntry(entry.capability), entry);
    assert.equal(run.moduleFileOf(entry), path.resolve(run.environmentModuleFile(entry.capability)));

    run.writeRoutingFile(routing);
    assert.deepEqual(run.readRoutingFile(), routing);
    assert.equal(readFileSync(run.routingFile, "utf8"), JSON.stringify(routing, null, 2) + "\n");
  });

  test("an index written before `skipped` existed reads its unmapped capabilities as skipped", () => {
    mkdirSync(path.dirname(run.environmentIndexFile), { recursive: true });
    writeFileSync(run.environmentIndexFile, JSON.stringify({ environments: [entry], unmapped: ["other"] }));
    assert.deepEqual(run.readEnvironmentIndex().skipped, [{ capability: "other", reason: "no environment configured (environments.map)" }]);
  });

  test("adapter paths are written relative to the run directory, read absolute, and follow a moved run", () => {
    run.writeEnvironmentIndex({ environments: [entry, { ...entry, capability: "untrained" }], skipped: [] });
    const adapterPath = path.join(path.resolve(run.adapterDirectory(entry.capability)), "final");
    const trained = { capability: entry.capability, adapterPath, adapter: entry.capability, iterations: 2, firstRewardMean: 0, lastRewardMean: 0.5, finishedAt: "2025-01-01T00:00:00.000Z" };
    run.writeTrainedAdapter(trained);
    const recorded = JSON.parse(readFileSync(run.trainingFile(entry.capability), "utf8")) as { adapterPath: string };
    assert.equal(recorded.adapterPath, path.join("adapters", entry.capability, "final"));
    assert.deepEqual(run.readTrainedAdapters(), [trained]);
    assert.equal(run.hasTrainedAdapter("untrained"), false);
    assert.equal(run.readTrainedAdapter("untrained"), undefined);

    const moved = openRunDirectory(path.join(scratch, "moved"));
    renameSync(run.root, moved.root);
    assert.equal(moved.readTrainedAdapter(entry.capability)?.adapterPath, path.join(path.resolve(moved.root), "adapters", entry.capability, "final"));
  });

  test("an absolute adapter path recorded by an older run still resolves", () => {
    mkdirSync(run.adapterDirectory("cap"), { recursive: true });
    writeFileSync(run.trainingFile("cap"), JSON.stringify({ capability: "cap", adapterPath: "/elsewhere/adapter", adapter: "cap", iterations: 1, firstRewardMean: null, lastRewardMean: null, finishedAt: "t" }));
    assert.equal(run.readTrainedAdapter("cap")?.adapterPath, path.resolve("/elsewhere/adapter"));
  });

  test("a malformed artifact is one line naming the file and the offending path", () => {
    run.writeRoutingFile(routing);
    const broken = JSON.parse(readFileSync(run.routingFile, "utf8")) as { decisions: { label: unknown }[] };
    broken.decisions[0]!.label = 7;
    writeFileSync(run.routingFile, JSON.stringify(broken));
    assert.throws(
      () => run.readRoutingFile(),
      (error: unknown) => {
        assert.ok(RunArtifactError.isInstance(error));
        assert.equal(error.file, run.routingFile);
        assert.match(error.message, /^.*eval\/routing\.json: decisions\[0\]\.label: .*expected string/);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );

    run.writeStageMarker({ stage: "route", startedAt: "", finishedAt: "", seconds: 1, summary: "" });
    writeFileSync(run.stageMarkerFile("route"), "{ not json");
    assert.throws(() => run.readStageMarker("route"), /stages\/route\.json: not valid JSON/);

    mkdirSync(run.adapterDirectory("cap"), { recursive: true });
    writeFileSync(run.trainingFile("cap"), JSON.stringify({ capability: "cap", adapter: "cap" }));
    assert.throws(() => run.readTrainedAdapter("cap"), /adapters\/cap\/training\.json: adapterPath: .*; iterations: /);

    assert.throws(() => run.readSelectedCapabilities("reference"), /analysis\/reference\/selected_capabilities\.json: file not found/);
  });
});
