import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import multiStepCompletion from "../synthesis/environments/multi-step-completion.js";
import { createModuleEnvironment } from "../envs/modules/module-environment.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import { CANDIDATES_FILE, SCORES_FILE, SELECTED_FILE } from "./analysis-directory.js";
import { runModuleReferenceAnalysis } from "./module-reference-analysis.js";
import { moduleConversation, type ModuleStep } from "../testing/module-reference-test-support.js";
import { REFERENCE_CAPABILITY_NAMES } from "./reference-capabilities.js";
import { REFERENCE_RUN } from "./reference-analysis.js";
import { runFileName, type RunFile } from "./run-file.js";

const directory = mkdtempSync(path.join(tmpdir(), "module-reference-analysis-"));
after(() => rmSync(directory, { recursive: true, force: true }));

describe("runModuleReferenceAnalysis", () => {
  test("labels the finished episodes of resolvable module environments, stores the labels and writes the analysis", async () => {
    const runner = nativeModuleRunner(multiStepCompletion);
    const environment = await createModuleEnvironment({ runner, seeds: [0, 1, 2], name: "trace-mini" });
    const store = openTrajectoryStore(path.join(directory, "store.sqlite"));
    try {
      const finish = async (taskId: string, trial: number, steps: (solution: ModuleStep[]) => ModuleStep[], success: boolean, name = environment.name) => {
        const instance = environment.instance(environment.task(taskId));
        const messages = await moduleConversation(runner, instance, steps(instance.solution));
        const key = { environment: name, taskId, trial };
        store.finishEpisode(key, { ...key, termination: "user_stop", reward: { reward: success ? 1 : 0, success, breakdown: {} }, messages });
      };
      await finish("seed-0", 0, (solution) => [...solution, "Done."], true);
      // Stops after the first write (the solution's first four calls are reads).
      await finish("seed-1", 0, (solution) => [...solution.slice(0, 5), "Done."], false);
      await finish("seed-1", 1, (solution) => [...solution, "Done."], true);
      // Not a module environment: skipped.
      await finish("seed-2", 0, (solution) => solution, true, "tau2-airline");
      // Not finished: skipped.
      store.addPendingEpisodes([{ environment: environment.name, taskId: "seed-2", trial: 0 }]);

      const outDirectory = path.join(directory, "analysis");
      const { run, scores } = await runModuleReferenceAnalysis({
        store,
        environments: (name) => (name === environment.name ? environment : undefined),
        outDirectory,
        thresholds: { coverage: 0.1, gap: 0.2 },
      });

      assert.deepEqual(run.totals, { total_failed: 1, total_passed: 2 });
      assert.deepEqual(run.labels.complete_required_state_changes, {
        lacking_failed: ["trace-mini:seed-1"],
        present_failed: [],
        na_failed: [],
        lacking_passed: [],
        present_passed: ["trace-mini:seed-0", "trace-mini:seed-1#1"],
        na_passed: [],
      });
      assert.deepEqual(run.labels.communicate_required_information?.na_passed, ["trace-mini:seed-0", "trace-mini:seed-1#1"]);

      const written = JSON.parse(readFileSync(path.join(outDirectory, runFileName(1)), "utf8")) as RunFile;
      assert.deepEqual(written, run);
      const candidates = JSON.parse(readFileSync(path.join(outDirectory, CANDIDATES_FILE), "utf8")) as { candidates: { name: string }[] };
      assert.deepEqual(candidates.candidates.map((candidate) => candidate.name), REFERENCE_CAPABILITY_NAMES);
      assert.deepEqual(JSON.parse(readFileSync(path.join(outDirectory, SCORES_FILE), "utf8")), scores);
      assert.equal(scores.thresholds.minRuns, 1);
      assert.deepEqual(scores.run_files, [runFileName(1)]);
      const completion = scores.capabilities.find((capability) => capability.skill === "complete_required_state_changes");
      assert.equal(completion?.status, "kept");
      const selected = JSON.parse(readFileSync(path.join(outDirectory, SELECTED_FILE), "utf8")) as unknown[];
      assert.ok(Array.isArray(selected));

      const stored = store.listLabels({ run: REFERENCE_RUN });
      assert.equal(stored.length, 3 * REFERENCE_CAPABILITY_NAMES.length);
      assert.ok(stored.every((label) => label.environment === "trace-mini"));
      assert.equal(stored.find((label) => label.taskId === "seed-1" && label.trial === 0 && label.capability === "complete_required_state_changes")?.label, "LACKING");
    } finally {
      store.close();
    }
  });
});
