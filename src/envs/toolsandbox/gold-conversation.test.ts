/** Gold-style checks on every offline root scenario: the milestones' conversation scores 1.0, its mutations less. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { toolSandboxDataDirectory } from "../../testing/shared-data.js";
import { createToolSandboxEnvironment } from "./environment.js";
import { goldConversation, type GoldOptions } from "./gold-conversation.js";
import { loadToolSandboxExport } from "./load-export.js";
import { loadTimeDependence } from "./time-rebase.js";

const directory = toolSandboxDataDirectory();
const data = loadToolSandboxExport(directory);
const roots = JSON.parse(readFileSync(path.join(directory, "root_scenarios.json"), "utf8")) as { name: string; network: string }[];
const offline = roots.filter((root) => root.network === "offline").map((root) => root.name);
const environment = createToolSandboxEnvironment(data, { scenarios: offline });
const score = (name: string, options: GoldOptions = {}) => environment.evaluate(environment.task(name), goldConversation(environment, environment.task(name), options), "user_stop").similarity;

test("every offline root scenario's gold conversation scores 1.0", () => {
  assert.equal(offline.length, 95);
  assert.deepEqual(offline.filter((name) => score(name) !== 1), []);
});

test("leaving out any one milestone's step scores below 1.0", () => {
  const kept: string[] = [];
  let checked = 0;
  for (const name of offline) {
    for (const milestone of environment.scenario(environment.task(name)).evaluation.milestones.dag_nodes) {
      checked++;
      if (score(name, { skipMilestone: milestone }) >= 1) kept.push(`${name}#${milestone}`);
    }
  }
  assert.ok(checked > 200);
  assert.deepEqual(kept, []);
});

test("a wrong value for an argument a milestone constrains scores below 1.0", () => {
  let constrained = 0;
  for (const name of offline) {
    const report: NonNullable<GoldOptions["report"]> = {};
    const similarity = score(name, { mutateFirstArgument: true, report });
    if (report.mutatedArgumentConstrained === true) {
      constrained++;
      assert.ok(similarity < 1, `${name}: ${report.mutatedCall} changed, still ${similarity}`);
    }
  }
  assert.ok(constrained >= 40, `only ${constrained} scenarios have a constrained first argument`);
});

/** A call that meets a minefield: its tool (named in content, or traced with arguments any value of which matches). */
function minefieldCall(name: string, target: Record<string, unknown>): { name: string; arguments: Record<string, unknown> } {
  const scenario = environment.scenario(environment.task(name));
  const firstReminder = scenario.starting_context.databases.REMINDER.rows[0]?.reminder_id;
  const firstContact = scenario.starting_context.databases.CONTACT.rows[1]?.person_id;
  const tool = typeof target.content === "string" ? target.content : ((JSON.parse(target.tool_trace as string) as { tool_name: string }[])[0] as { tool_name: string }).tool_name;
  const now = data.meta.frozen_now_posix;
  const argumentsByTool: Record<string, Record<string, unknown>> = {
    search_reminder: typeof target.tool_trace === "string" && target.tool_trace.includes("creation_timestamp") ? { creation_timestamp_lowerbound: 315529200.0 } : { reminder_timestamp_lowerbound: 315529200.0 },
    modify_reminder: { reminder_id: firstReminder, content: "changed" },
    remove_reminder: { reminder_id: firstReminder },
    timestamp_diff: { timestamp_0: now, timestamp_1: now + 86400 },
    modify_contact: { person_id: firstContact, name: "Changed" },
    remove_contact: { person_id: firstContact },
    send_message_with_phone_number: { phone_number: "+12453344098", content: "hi" },
    calculate_lat_lon_distance: { latitude_0: 37.3, longitude_0: -122.0, latitude_1: 36.2, longitude_1: -112.2 },
  };
  return { name: tool, arguments: argumentsByTool[tool] ?? {} };
}

test("calling a minefield's tool zeroes the similarity", () => {
  let minefields = 0;
  for (const name of offline) {
    for (const minefield of environment.scenario(environment.task(name)).evaluation.minefields.items) {
      const target = minefield.snapshot_constraints.find((constraint) => constraint.origin === "declared")?.target_dataframe?.rows[0];
      if (target === undefined) continue;
      minefields++;
      assert.equal(score(name), 1, `${name} without the minefield call`);
      assert.equal(score(name, { extraCalls: [minefieldCall(name, target)] }), 0, `${name}: ${JSON.stringify(target)}`);
    }
  }
  assert.equal(minefields, 20);
});

test("under another declared now and time zone, the rebuilt scenarios' gold conversations still score 1.0", () => {
  const clock = { now: data.meta.frozen_now_posix + 40 * 86400 + 3 * 3600, utcOffsetHours: -8 };
  const shifted = createToolSandboxEnvironment(data, { scenarios: offline, clock, timeDependence: loadTimeDependence(directory) });
  assert.equal(shifted.clock.now, clock.now);
  const failures = offline.filter((name) => shifted.evaluate(shifted.task(name), goldConversation(shifted, shifted.task(name)), "user_stop").similarity !== 1);
  assert.deepEqual(failures, []);
  assert.notDeepEqual(shifted.scenario(shifted.task("add_reminder_content_and_week_delta_and_time")).evaluation, environment.scenario(environment.task("add_reminder_content_and_week_delta_and_time")).evaluation);
  assert.throws(() => createToolSandboxEnvironment(data, { clock }), /time_dependence/);
});
