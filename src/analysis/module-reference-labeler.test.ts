import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import multiStepCompletion from "../synthesis/environments/multi-step-completion.js";
import preconditionVerification from "../synthesis/environments/precondition-verification.js";
import toolCallingPrecision from "../synthesis/environments/tool-calling-precision.js";
import type { ModuleInstance, SolutionCall } from "../envs/modules/capability-module.js";
import { solutionReply } from "../envs/modules/module-policies.js";
import { nativeModuleRunner, type ModuleRunner } from "../envs/modules/module-runner.js";
import { moduleReferenceLabels } from "./module-reference-labeler.js";
import { changedRecords, stateRecords } from "./module-reference-records.js";
import { moduleConversation, type ModuleStep } from "../testing/module-reference-test-support.js";

const multiStep = nativeModuleRunner(multiStepCompletion);
const precondition = nativeModuleRunner(preconditionVerification);
const precision = nativeModuleRunner(toolCallingPrecision);

async function labels(runner: ModuleRunner, instance: ModuleInstance, steps: readonly ModuleStep[]) {
  return moduleReferenceLabels(runner, instance, await moduleConversation(runner, instance, steps));
}

const isRead = (runner: ModuleRunner) => (call: SolutionCall) => runner.readTools.includes(call.name);
const reads = (runner: ModuleRunner, instance: ModuleInstance) => instance.solution.filter(isRead(runner));
const writes = (runner: ModuleRunner, instance: ModuleInstance) => instance.solution.filter((call) => !isRead(runner)(call));

describe("moduleReferenceLabels", () => {
  test("the gold solution with its reply has every capability; communication is NA without mustSay", async () => {
    const instance = await multiStep.generate(0);
    assert.deepEqual(await labels(multiStep, instance, [...instance.solution, solutionReply(instance)]), {
      complete_required_state_changes: "PRESENT",
      correct_write_arguments: "PRESENT",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "NA",
      lookup_before_write: "PRESENT",
    });
  });

  test("the gold solution lacks nothing in any hand-written module", async () => {
    for (const { module } of CAPABILITY_ENVIRONMENTS) {
      const runner = nativeModuleRunner(module);
      for (const seed of [0, 1, 2, 3, 4]) {
        const instance = await runner.generate(seed);
        const result = await labels(runner, instance, [...instance.solution, solutionReply(instance)]);
        assert.ok(!Object.values(result).includes("LACKING"), `${module.capability} seed ${seed}: ${JSON.stringify(result)}`);
        assert.equal(result.complete_required_state_changes, "PRESENT", `${module.capability} seed ${seed}`);
      }
    }
  });

  test("doing nothing lacks completion; the capabilities about writes it never made are NA", async () => {
    const instance = await multiStep.generate(1);
    assert.deepEqual(await labels(multiStep, instance, reads(multiStep, instance)), {
      complete_required_state_changes: "LACKING",
      correct_write_arguments: "NA",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "NA",
      lookup_before_write: "NA",
    });
  });

  test("stopping after the first of several required writes lacks completion only", async () => {
    const instance = await multiStep.generate(2);
    const required = writes(multiStep, instance);
    assert.equal(required.length, 3);
    assert.deepEqual(await labels(multiStep, instance, [...reads(multiStep, instance), required[0] as SolutionCall, "Done."]), {
      complete_required_state_changes: "LACKING",
      correct_write_arguments: "PRESENT",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "NA",
      lookup_before_write: "PRESENT",
    });
  });

  test("the right tool on the right record with a wrong argument lacks correct arguments only", async () => {
    const instance = await multiStep.generate(3);
    const bags = instance.solution.find((call) => call.name === "update_reservation_baggages") as SolutionCall;
    const tooMany = { ...bags, arguments: { ...bags.arguments, total_baggages: (bags.arguments.total_baggages as number) + 1, nonfree_baggages: (bags.arguments.nonfree_baggages as number) + 1 } };
    const steps = instance.solution.map((call) => (call === bags ? tooMany : call));
    const conversation = await moduleConversation(multiStep, instance, steps);
    assert.ok(!conversation.some((message) => message.role === "tool" && message.content.startsWith("Error")), "every call succeeds");
    assert.deepEqual(await moduleReferenceLabels(multiStep, instance, conversation), {
      complete_required_state_changes: "PRESENT",
      correct_write_arguments: "LACKING",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "NA",
      lookup_before_write: "PRESENT",
    });
  });

  test("changing a record the gold leaves alone lacks restraint", async () => {
    const instance = await precondition.generate(0);
    const ineligible = (instance.facts.ineligible as string[])[0] as string;
    const result = await labels(precondition, instance, [...instance.solution, { name: "cancel_reservation", arguments: { reservation_id: ineligible } }]);
    assert.deepEqual(result, {
      complete_required_state_changes: "PRESENT",
      correct_write_arguments: "PRESENT",
      avoid_unrequested_state_changes: "LACKING",
      communicate_required_information: "NA",
      lookup_before_write: "PRESENT",
    });
  });

  test("a write with an identifier taken from the user's message, never looked up, lacks lookup before write", async () => {
    const instance = await precondition.generate(1);
    const required = writes(precondition, instance);
    for (const call of required) assert.ok(instance.request.includes(call.arguments.reservation_id as string), "the user names the reservation");
    assert.deepEqual(await labels(precondition, instance, required), {
      complete_required_state_changes: "PRESENT",
      correct_write_arguments: "PRESENT",
      avoid_unrequested_state_changes: "PRESENT",
      communicate_required_information: "NA",
      lookup_before_write: "LACKING",
    });
    // Any earlier tool output that contains the identifier counts as its lookup (here the user's reservation list).
    const user = instance.solution[0] as SolutionCall;
    assert.equal(user.name, "get_user_details");
    assert.equal((await labels(precondition, instance, [user, ...required])).lookup_before_write, "PRESENT");
  });

  test("a required item never stated lacks communication; stating it in any case is enough", async () => {
    const generated = await precision.generate(0);
    const order = generated.facts.order_id as string;
    const instance = { ...generated, mustSay: [`Order ${order}`] };
    assert.equal((await labels(precision, instance, [...instance.solution, "All done."])).communicate_required_information, "LACKING");
    assert.equal((await labels(precision, instance, [...instance.solution, `Done: ORDER ${order} is updated.`])).communicate_required_information, "PRESENT");
  });

  test("a task whose gold changes nothing is NA throughout when the agent only reads; a failed write attempt is still judged", async () => {
    const generated = await precondition.generate(2);
    const instance = { ...generated, solution: reads(precondition, generated) };
    assert.deepEqual(await labels(precondition, instance, instance.solution), {
      complete_required_state_changes: "NA",
      correct_write_arguments: "NA",
      avoid_unrequested_state_changes: "NA",
      communicate_required_information: "NA",
      lookup_before_write: "NA",
    });
    const attempt = await labels(precondition, instance, [...instance.solution, { name: "cancel_reservation", arguments: { reservation_id: "NOPE00" } }]);
    assert.equal(attempt.avoid_unrequested_state_changes, "PRESENT");
    assert.equal(attempt.lookup_before_write, "LACKING");
  });
});

describe("module state records", () => {
  test("a record is state[table][id]; a top-level value that is not an object is one record", () => {
    assert.deepEqual(
      [...stateRecords({ flights: { "HAT001/2024-05-20": { status: "available", seats: 3 } }, log: [1, 2], version: 2 })],
      [
        ['["flights","HAT001/2024-05-20"]', '{"seats":3,"status":"available"}'],
        ['["log"]', "[1,2]"],
        ['["version"]', "2"],
      ],
    );
  });

  test("records differ when their canonical JSON differs, or when one state lacks them", () => {
    const before = { orders: { a: { status: "pending", total: 1 }, b: { status: "pending" } }, users: { u: { name: "x" } } };
    const after = { orders: { a: { total: 1, status: "pending" }, c: { status: "pending" } }, users: { u: { name: "y" } } };
    assert.deepEqual([...changedRecords(before, after)].sort(), ['["orders","b"]', '["orders","c"]', '["users","u"]']);
  });
});
