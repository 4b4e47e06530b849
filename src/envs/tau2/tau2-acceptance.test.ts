/** Acceptance checks of the τ²-bench environments on the real train split and the real τ²-bench runs. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { tau2DataDirectory, tau2DomainDirectory } from "../../testing/shared-data.js";
import { DataFileError } from "../core/data-file-error.js";
import { loadTau2Domain } from "./domains.js";
import { goldConversation } from "./gold-trajectory.js";
import { gradeTau2, toolCallsWithObservations } from "./grade.js";
import { readTau2Results, writeTau2Results } from "./results-file.js";
import type { Tau2Action } from "./task-schema.js";

/** Write tools that replace fields outright (a later call on the same record erases the earlier one's effect). */
const OVERWRITING_TOOLS = new Set(["modify_user_address", "modify_pending_order_address", "update_reservation_passengers"]);

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-tau2-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A different value of the same JSON type (strings gain a suffix, numbers grow, lists change their first item). */
function mutateValue(value: unknown): unknown {
  if (typeof value === "string") return `${value}_changed`;
  if (typeof value === "number") return value + 1;
  if (typeof value === "boolean") return !value;
  if (Array.isArray(value)) return value.length === 0 ? ["changed"] : [mutateValue(value[0]), ...(value.slice(1) as unknown[])];
  if (value !== null && typeof value === "object") {
    const [key, inner] = (Object.entries(value as Record<string, unknown>)[0] ?? ["changed", null]);
    return { ...value, [key]: mutateValue(inner) };
  }
  return "changed";
}

for (const domain of ["airline", "retail"] as const) {
  describe(`τ² ${domain}`, () => {
    const data = loadTau2Domain(domain, tau2DomainDirectory(domain));
    const runsFile = path.join(tau2DataDirectory(), "trajectories", `${domain}-qwen3-30b-a3b-base.train.json`);

    test("every train-split task's gold trajectory scores 1.0", () => {
      const failures = data.tasks.filter((task) => gradeTau2(data, task, goldConversation(data, task), "user_stop").rewardInfo.reward !== 1);
      assert.deepEqual(failures.map((task) => task.id), []);
      assert.equal(data.tasks.length, domain === "airline" ? 30 : 74);
    });

    test("dropping any one effective write, or changing one argument of a write, fails the DB check", (context) => {
      let mutations = 0;
      const skippedGoldWrites: string[] = [];
      for (const task of data.tasks) {
        const actions = task.evaluation_criteria?.actions ?? [];
        // Gold lists sometimes hold a write whose effect cannot reach the final state: one that changes nothing when
        // applied (τ²-bench refuses it with an error, or it sets values the record already holds), or one that a later
        // call of the same tool on the same record overwrites (an address changed, then changed back). Those are
        // skipped and listed; every other write must matter.
        const stateAfter = (count: number) => {
          const state = data.database.createState();
          for (const action of actions.slice(0, count)) data.toolKit.execute(state, action.name, action.arguments);
          return state;
        };
        const target = (action: Tau2Action) => Object.entries(action.arguments).find(([key]) => key.endsWith("_id"))?.[1];
        actions.forEach((action, index) => {
          if (data.toolKit.kind(action.name) !== "write") return;
          const noChange = stateAfter(index).equals(stateAfter(index + 1));
          const superseded = OVERWRITING_TOOLS.has(action.name) && actions.slice(index + 1).some((later) => later.name === action.name && target(later) === target(action));
          if (noChange || superseded) {
            skippedGoldWrites.push(`${task.id}:${action.action_id} (${noChange ? "changes nothing" : "superseded"})`);
            return;
          }
          const variants: [string, Tau2Action[]][] = [[`drop ${action.action_id}`, actions.filter((_, other) => other !== index)]];
          for (const key of Object.keys(action.arguments)) {
            const changed = { ...action, arguments: { ...action.arguments, [key]: mutateValue(action.arguments[key]) } };
            variants.push([`${action.action_id}.${key} changed`, actions.map((other, position) => (position === index ? changed : other))]);
          }
          for (const [label, mutated] of variants) {
            const grade = gradeTau2(data, task, goldConversation(data, task, { actions: mutated }), "user_stop");
            assert.equal(grade.rewardInfo.db_check?.db_match, false, `task ${task.id}: ${label} still matches the gold database`);
            assert.equal(grade.rewardInfo.reward, 0);
            mutations++;
          }
        });
      }
      assert.ok(mutations > (domain === "airline" ? 30 : 200), `only ${mutations} mutations checked`);
      context.diagnostic(`${mutations} mutations; skipped gold writes: ${skippedGoldWrites.join(", ") || "none"}`);
      assert.ok(skippedGoldWrites.length <= 5, `gold writes skipped: ${skippedGoldWrites.join(", ")}`);
    });

    test("omitting any one communicate_info item fails COMMUNICATE", () => {
      let checked = 0;
      for (const task of data.tasks) {
        const required = task.evaluation_criteria?.communicate_info ?? [];
        required.forEach((_, index) => {
          const grade = gradeTau2(data, task, goldConversation(data, task, { communicate: required.filter((__, other) => other !== index) }), "user_stop");
          assert.equal(grade.rewardInfo.reward_breakdown?.COMMUNICATE, 0, `task ${task.id} item ${index}`);
          assert.equal(grade.rewardInfo.reward, 0);
          checked++;
        });
      }
      assert.ok(checked > 0);
    });

    test("real τ²-bench runs replay with the recorded observations and reproduce every recorded reward", () => {
      const runs = readTau2Results(runsFile);
      assert.equal(runs.simulations.length, domain === "airline" ? 30 : 74);
      let calls = 0;
      for (const simulation of runs.simulations) {
        const task = data.tasks.find((candidate) => candidate.id === simulation.taskId);
        assert.ok(task, `task ${simulation.taskId}`);
        const grade = gradeTau2(data, task, simulation.messages, simulation.termination);
        if (simulation.termination === "user_stop" || simulation.termination === "agent_stop") {
          assert.deepEqual(grade.replayMismatches, [], `simulation of task ${simulation.taskId}`);
        }
        // Stronger than τ²-bench's own check (parsed JSON equality): the observation text is byte-identical.
        const state = data.database.createState();
        for (const { call, observation } of toolCallsWithObservations(simulation.messages)) {
          const replayed = data.toolKit.execute(state, call.function.name, call.function.arguments).content;
          assert.equal(replayed, observation, `task ${simulation.taskId}: ${call.function.name} ${call.function.arguments}`);
          calls++;
        }
        assert.equal(grade.rewardInfo.reward, simulation.recordedRewardInfo?.reward, `reward of task ${simulation.taskId}`);
        const recordedDb = (simulation.recordedRewardInfo?.db_check as { db_match: boolean } | null | undefined)?.db_match;
        if (recordedDb !== undefined) assert.equal(grade.rewardInfo.db_check?.db_match, recordedDb, `db_match of task ${simulation.taskId}`);
      }
      assert.equal(calls, domain === "airline" ? 223 : 577);
    });

    test("export → import → re-grade gives identical rewards", () => {
      const runs = readTau2Results(runsFile);
      const gold = data.tasks.map((task) => ({ id: `gold-${task.id}`, taskId: task.id, trial: 0, seed: null, termination: "user_stop" as const, messages: goldConversation(data, task), recordedRewardInfo: null, extra: {} }));
      const simulations = [...runs.simulations, ...gold].map((simulation) => {
        const task = data.tasks.find((candidate) => candidate.id === simulation.taskId)!;
        return { ...simulation, rewardInfo: gradeTau2(data, task, simulation.messages, simulation.termination).rewardInfo };
      });
      const file = path.join(scratch, `${domain}-roundtrip.json`);
      writeTau2Results(file, { info: { source: "test" }, tasks: data.tasks, simulations });
      const reloaded = readTau2Results(file);
      assert.equal(reloaded.simulations.length, simulations.length);
      reloaded.simulations.forEach((simulation, index) => {
        const task = data.tasks.find((candidate) => candidate.id === simulation.taskId)!;
        const regraded = gradeTau2(data, task, simulation.messages, simulation.termination);
        assert.equal(regraded.rewardInfo.reward, simulations[index]!.rewardInfo.reward, simulation.id);
        assert.equal(simulation.recordedRewardInfo?.reward, simulations[index]!.rewardInfo.reward);
        assert.deepEqual(regraded.replayMismatches, []);
      });
    });
  });
}

test("a missing or malformed results file names the file and the problem", () => {
  const missing = path.join(scratch, "nope.json");
  assert.throws(() => readTau2Results(missing), (error: unknown) => DataFileError.isInstance(error) && error.file === missing && /file not found/.test(error.message));
  const malformed = path.join(scratch, "bad.json");
  writeFileSync(malformed, JSON.stringify({ info: {}, tasks: [], simulations: [{ id: "s", task_id: "0", termination_reason: "exploded", messages: [] }] }));
  assert.throws(() => readTau2Results(malformed), (error: unknown) => DataFileError.isInstance(error) && /simulations\[0\]\.termination_reason/.test(error.message));
});
