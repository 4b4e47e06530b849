import assert from "node:assert/strict";
import { rmSync, unlinkSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { DataFileError } from "../core/data-file-error.js";
import { loadTau2DomainData, UnsupportedTaskError } from "./domain-data.js";
import { toyDomain, writeToyDomainDirectory } from "../../testing/tau2-toy-domain.js";

function expectDataFileError(directory: string, file: string, problem: RegExp) {
  assert.throws(
    () => loadTau2DomainData(toyDomain, directory),
    (error: unknown) => {
      assert.ok(DataFileError.isInstance(error), `expected DataFileError, got ${String(error)}`);
      assert.equal(error.file, path.join(directory, file));
      assert.match(error.message, problem);
      return true;
    },
  );
  rmSync(directory, { recursive: true });
}

test("loads a domain directory", () => {
  const directory = writeToyDomainDirectory();
  const data = loadTau2DomainData(toyDomain, directory);
  assert.equal(data.tasks.length, 2);
  assert.deepEqual(data.tasks[0]?.evaluation_criteria?.reward_basis, ["DB", "COMMUNICATE"]);
  assert.equal(data.policy, "# Toy policy\n");
  rmSync(directory, { recursive: true });
});

test("missing tasks.json names the file", () => {
  const directory = writeToyDomainDirectory();
  unlinkSync(path.join(directory, "tasks.json"));
  expectDataFileError(directory, "tasks.json", /file not found/);
});

test("malformed JSON in tasks.json names the file", () => {
  expectDataFileError(writeToyDomainDirectory({ tasks: "[{" }), "tasks.json", /not valid JSON/);
});

test("a task with a wrongly typed field names the path", () => {
  const tasks = JSON.stringify([{ id: "0", user_scenario: { instructions: "x" }, evaluation_criteria: { actions: [{ action_id: "a", name: "t", arguments: [] }] } }]);
  expectDataFileError(writeToyDomainDirectory({ tasks }), "tasks.json", /\[0\]\.evaluation_criteria\.actions\[0\]\.arguments: /);
});

test("duplicate task ids are reported", () => {
  const tasks = JSON.stringify([{ id: "0", user_scenario: { instructions: "x" } }, { id: "0", user_scenario: { instructions: "y" } }]);
  expectDataFileError(writeToyDomainDirectory({ tasks }), "tasks.json", /duplicate task id 0/);
});

test("missing or malformed db.json names the file and the path", () => {
  const missing = writeToyDomainDirectory();
  unlinkSync(path.join(missing, "db.json"));
  expectDataFileError(missing, "db.json", /file not found/);
  const db = JSON.stringify({ accounts: { a1: { id: "a1", balance: "ten", notes: [] } } });
  expectDataFileError(writeToyDomainDirectory({ db }), "db.json", /accounts\.a1\.balance: /);
});

test("missing policy.md names the file", () => {
  expectDataFileError(writeToyDomainDirectory({ policy: null }), "policy.md", /file not found/);
});

test("tasks with initialization actions are refused with a clear error", () => {
  const tasks = JSON.stringify([{ id: "7", user_scenario: { instructions: "x" }, initial_state: { initialization_actions: [{ env_type: "user", func_name: "f", arguments: {} }] } }]);
  const directory = writeToyDomainDirectory({ tasks });
  assert.throws(() => loadTau2DomainData(toyDomain, directory), UnsupportedTaskError);
  rmSync(directory, { recursive: true });
});
