import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "commander";
import { addEndpointOptions, endpointOption } from "./endpoint-options.js";
import { UsageError } from "./usage-error.js";

function parse(arguments_: string[]): Record<string, unknown> {
  const command = new Command().exitOverride();
  addEndpointOptions(command, "agent", "the policy", { required: true });
  addEndpointOptions(command, "user", "the user simulator", { fallback: "the agent's" });
  command.parse(arguments_, { from: "user" });
  return command.opts();
}

test("every command's endpoint options are --<role>-url, --<role>-model and --<role>-api-key", () => {
  const values = parse(["--agent-url", "http://a:1/v1", "--agent-model", "m", "--agent-api-key", "k", "--user-model", "u"]);
  const agent = endpointOption(values, "agent");
  assert.deepEqual(agent, { url: "http://a:1/v1", model: "m", apiKey: "k" });
  // The user takes the agent's URL and, on that URL, its key.
  assert.deepEqual(endpointOption(values, "user", agent), { url: "http://a:1/v1", model: "u", apiKey: "k" });
  const elsewhere = parse(["--agent-url", "http://a:1/v1", "--agent-model", "m", "--agent-api-key", "k", "--user-url", "http://b:2/v1"]);
  assert.deepEqual(endpointOption(elsewhere, "user", agent), { url: "http://b:2/v1", model: "m" }, "another URL does not get the agent's key");
  assert.throws(() => parse(["--agent-model", "m"]), /--agent-url/, "required options are required");
});

test("an endpoint given in part, or with a URL that is not http(s), is a usage error naming the option", () => {
  assert.equal(endpointOption({}, "policy"), undefined);
  assert.throws(() => endpointOption({ policyUrl: "http://x/v1" }, "policy"), (error: unknown) => error instanceof UsageError && /--policy-url needs --policy-model/.test(error.message));
  assert.throws(() => endpointOption({ policyModel: "m" }, "policy"), /--policy-model needs --policy-url/);
  assert.throws(() => endpointOption({ analystUrl: "localhost:8000", analystModel: "m" }, "analyst"), /--analyst-url must be an http\(s\) URL, got "localhost:8000"/);
});
