import assert from "node:assert/strict";
import { test } from "node:test";
import { DatabaseBase } from "./copy-on-write-database.js";

interface Tables extends Record<string, object> {
  users: { name: string; tags: string[]; balance: number };
}

function makeBase() {
  return new DatabaseBase<Tables>({
    users: { "2": { name: "b", tags: [], balance: 1 }, a: { name: "a", tags: ["x"], balance: 10 } },
  });
}

test("writes go to a copy; the base and other states are untouched", () => {
  const base = makeBase();
  const first = base.createState();
  const second = base.createState();
  first.edit("users", "a").tags.push("y");
  assert.deepEqual(first.get("users", "a")?.tags, ["x", "y"]);
  assert.deepEqual(second.get("users", "a")?.tags, ["x"]);
  assert.deepEqual(base.tables.users.get("a")?.tags, ["x"]);
});

test("base records are frozen, so a write without edit() throws", () => {
  const state = makeBase().createState();
  const record = state.get("users", "a") as Tables["users"];
  assert.throws(() => record.tags.push("z"), TypeError);
});

test("equality compares only touched records and treats equal contents as equal", () => {
  const base = makeBase();
  const left = base.createState();
  const right = base.createState();
  assert.ok(left.equals(right));
  left.edit("users", "a");
  assert.ok(left.equals(right), "an edited but unchanged record is still equal");
  left.edit("users", "a").balance = 9;
  assert.ok(!left.equals(right));
  assert.deepEqual(left.differences(right), [{ table: "users", id: "a" }]);
  right.edit("users", "a").balance = 9;
  assert.ok(left.equals(right));
});

test("inserted records iterate after base records and count as differences", () => {
  const base = makeBase();
  const state = base.createState();
  state.insert("users", "new", { name: "n", tags: [], balance: 0 });
  assert.deepEqual([...state.ids("users")], ["2", "a", "new"]);
  assert.ok(!state.equals(base.createState()));
  assert.deepEqual(Object.keys(state.toJson().users), ["2", "a", "new"]);
});

test("editing a missing record throws a RangeError naming it", () => {
  const state = makeBase().createState();
  assert.throws(() => state.edit("users", "nobody"), /users\[nobody\]/);
});
