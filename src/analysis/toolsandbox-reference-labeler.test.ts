/**
 * The ToolSandbox reference labeler on ToolSandbox's own evaluations: the scored conversations of
 * `grading_checks.json.gz` (10 scripted, 1032 of its UnhelpfulAgent), each with the milestone mapping ToolSandbox computed.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import type { ToolSandboxEvaluation } from "../envs/toolsandbox/evaluate.js";
import { loadGradingChecks, loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";
import { toolSandboxDataDirectory } from "../testing/shared-data.js";
import { dependencyMilestones, milestoneKind, toolSandboxReferenceLabels } from "./toolsandbox-reference-labeler.js";

const data = loadToolSandboxExport(toolSandboxDataDirectory());
const scenarios = new Map(data.scenarios.map((scenario) => [scenario.name, scenario]));
const checks = loadGradingChecks(path.join(toolSandboxDataDirectory(), "grading_checks.json.gz"));
const labelsOf = (check: { scenario: string; expected: unknown }) => toolSandboxReferenceLabels(scenarios.get(check.scenario)!, check.expected as ToolSandboxEvaluation);

test("each scripted conversation that ToolSandbox scores below 1 is LACKING in the capability its script breaks, and only there", () => {
  const lacking = checks.scripted_checks.map((check) => [check.scenario, check.description, Object.entries(labelsOf(check)).flatMap(([name, label]) => (label === "LACKING" ? [name] : []))]);
  assert.deepEqual(lacking, [
    ["cellular_off", "correct: one tool call + exact confirmation", []],
    ["cellular_off", "correct action, paraphrased confirmation (non-trivial ROUGE-L)", ["report_results_to_user"]],
    ["send_message_with_contact_content_cellular_off", "state dependency: send fails, enable cellular, retry", []],
    ["send_message_with_contact_content_cellular_off", "invalid parallel call (enable+send): permutation fails", ["reach_required_world_state"]],
    ["add_contact_with_name_and_phone_number", "addition_similarity, reference -1", []],
    ["add_contact_with_name_and_phone_number", "adds with relationship set (exact-match override on relationship)", ["reach_required_world_state"]],
    ["find_days_till_holiday", "tool_trace_dependant_similarity (fill_to tool_trace and content)", []],
    ["find_days_till_holiday", "wrong day count in final answer", ["report_results_to_user"]],
    ["turn_on_wifi_low_battery_mode", "state dependency via low battery mode", []],
    ["find_current_city_insufficient_information", "correct refusal (no minefield hit)", []],
  ]);
  // The state dependency is recognised where the script exercises it, and a correct refusal counts as avoiding the minefield.
  assert.equal(labelsOf(checks.scripted_checks[2]!).resolve_state_dependencies, "PRESENT");
  assert.equal(labelsOf(checks.scripted_checks[9]!).avoid_forbidden_actions, "PRESENT");
});

test("on all 1042 scored conversations a capability is LACKING exactly when ToolSandbox's similarity is below 1", () => {
  const all = [...checks.scripted_checks, ...(checks.unhelpful_agent_baseline ?? [])];
  assert.equal(all.length, 1042);
  const mismatched = all.filter((check) => Object.values(labelsOf(check)).includes("LACKING") !== ((check.expected as ToolSandboxEvaluation).similarity < 1));
  assert.deepEqual(mismatched.map((check) => check.scenario), []);
});

test("every root scenario's milestones have a kind, and the SETTING steps before an action are the STATE_DEPENDENCY category's", () => {
  const roots = data.scenarios.filter((scenario) => scenario.augmentation === "none");
  assert.equal(roots.length, 129);
  assert.deepEqual(roots.flatMap((scenario) => scenario.evaluation.milestones.items.filter((milestone) => milestoneKind(milestone) === undefined).map((milestone) => `${scenario.name}/${milestone.index}`)), []);
  const category = roots.filter((scenario) => scenario.categories.includes("STATE_DEPENDENCY")).map((scenario) => scenario.name);
  const found = roots.filter((scenario) => dependencyMilestones(scenario).size > 0).map((scenario) => scenario.name);
  assert.equal(category.length, 24);
  assert.deepEqual(category.filter((name) => !found.includes(name)), [], "every STATE_DEPENDENCY root has a dependency step");
  // One more root turns low battery mode off before it can add a reminder with a location: a dependency its categories do not name.
  assert.deepEqual(found.filter((name) => !category.includes(name)), ["add_reminder_content_and_week_delta_and_time_and_location_low_battery_mode_multiple_user_turn_alt"]);
  // Turning cellular off and saying so is the task itself, not a dependency.
  assert.equal(dependencyMilestones(scenarios.get("cellular_off")!).size, 0);
});
