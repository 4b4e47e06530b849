import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolError } from "./tool-error.js";
import { ToolKit, type ToolDefinition } from "./tool-kit.js";

interface Counter {
  value: number;
}

const add: ToolDefinition<Counter> = {
  name: "add",
  kind: "write",
  description: "Add to the counter.",
  parameters: {
    type: "object",
    properties: { amount: { type: "integer" }, note: { type: "string" } },
    required: ["amount", "note"],
  },
  run(state, args) {
    if ((args.amount as number) < 0) throw new ToolError("Amount must be positive");
    state.value += args.amount as number;
    return { value: state.value };
  },
};

const kit = new ToolKit<Counter>("CounterTools", [add], (path) => path.at(-1) === "value");

test("a valid call runs and is serialised as Python would", () => {
  const state = { value: 1 };
  assert.deepEqual(kit.execute(state, "add", '{"amount": 2, "note": "x"}'), { content: '{"value": 3.0}', error: false });
});

test("every malformed call becomes an error observation, never a crash", () => {
  const state = { value: 0 };
  const cases: [string, string, RegExp][] = [
    ["nope", "{}", /^Error: Tool 'nope' not found\.$/],
    ["add", "{not json", /^Error: Tool arguments for add are not valid JSON/],
    ["add", "[1]", /must be a JSON object/],
    ["add", '{"note": "x"}', /^Error: CounterTools\.add\(\) missing 1 required positional argument: 'amount'$/],
    ["add", "{}", /missing 2 required positional arguments: 'amount' and 'note'$/],
    ["add", '{"amount": 1, "note": "x", "extra": 1}', /got an unexpected keyword argument 'extra'$/],
    ["add", '{"amount": "lots", "note": "x"}', /^Error: 1 validation error for add\namount\n/],
    ["add", '{"amount": -1, "note": "x"}', /^Error: Amount must be positive$/],
  ];
  for (const [name, args, pattern] of cases) {
    const result = kit.execute(state, name, args);
    assert.equal(result.error, true, `${name} ${args}`);
    assert.match(result.content, pattern);
  }
  assert.equal(state.value, 0);
});

test("lax coercion like pydantic: numeric strings become integers", () => {
  const state = { value: 0 };
  assert.equal(kit.execute(state, "add", { amount: "5", note: "x" }).content, '{"value": 5.0}');
});

test("scalar results are stringified as τ²-bench's to_json_str does", () => {
  assert.equal(kit.serialize(true), "True");
  assert.equal(kit.serialize(3), "3");
  assert.equal(kit.serialize("text"), "text");
  assert.equal(kit.serialize(null), "null");
});

test("list and object contents reach the tool untouched (the tool validates them itself)", () => {
  const echo: ToolDefinition<Counter> = {
    name: "echo",
    kind: "read",
    description: "Echo.",
    parameters: {
      type: "object",
      properties: { items: { type: "array", items: { type: "object", properties: { date: { type: "string" } } } } },
      required: ["items"],
    },
    run: (_state, args) => JSON.stringify(args.items),
  };
  const echoKit = new ToolKit<Counter>("EchoTools", [echo]);
  assert.equal(echoKit.execute({ value: 0 }, "echo", { items: [{ date: 5 }, { date: null }] }).content, '[{"date":5},{"date":null}]');
  assert.match(echoKit.execute({ value: 0 }, "echo", { items: "x" }).content, /^Error: 1 validation error for echo\nitems\n/);
});
