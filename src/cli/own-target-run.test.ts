/**
 * `trace run` on a user's own target (issue: your own environment): the worked example `examples/ticketing/` as a
 * target module, every stage with the worker's tiny model as the policy and scripted analyst and generator endpoints;
 * then the same service as an MCP server started by the run, through the base rollouts, and exported.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ServerResponse } from "node:http";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, test } from "node:test";
import { loadTargetModule } from "../envs/custom/load-target-module.js";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer, type ReceivedRequest } from "../testing/fake-chat-server.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { SMALL_RUN_SETTINGS as small } from "../testing/small-run-settings.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "bin/trace.js");
const example = path.join(root, "examples/ticketing");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-own-target-"));
const servers: FakeChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  if (process.env.TRACE_KEEP_SCRATCH === undefined) rmSync(scratch, { recursive: true, force: true });
});

const firstContent = (request: ReceivedRequest): string => (request.body.messages as { content: string }[])[0]?.content ?? "";

/** The analyst: one capability, LACKING on every failed trajectory. */
function analyst(request: ReceivedRequest, res: ServerResponse): void {
  const prompt = firstContent(request);
  if (prompt.includes("capability discovery agent")) {
    const candidates = [{ name: "customer_identification", description: "Identifies the customer by email before acting on a ticket. LACKING when a ticket is changed without it.", example_trajectories: [] }];
    return sendJson(res, 200, chatBody({ content: JSON.stringify({ candidates }) }));
  }
  const labels: Record<string, Record<string, string>> = {};
  for (const match of prompt.matchAll(/^### (\S+) — (FAILED|PASSED)/gm)) labels[match[1]!] = { customer_identification: match[2] === "FAILED" ? "LACKING" : "PRESENT" };
  sendJson(res, 200, chatBody({ content: JSON.stringify({ labels }) }));
}

const { module: ticketing } = await loadTargetModule(path.join(example, "environment.ts"));
const ticketingTool = (name: string) => {
  const tool = ticketing.tools.find((entry) => entry.name === name)!;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
};

/**
 * What the scripted generator answers: a capability module on the target's own tools (find_customer, close_ticket,
 * schemas as the target gives them): close the ticket the user names, after identifying them. An unsolved episode earns
 * 0.5 when its replies have an odd total length, so the tiny policy's groups differ and GRPO updates the adapter.
 */
function generatedModule(): string {
  return `import type { CapabilityModule } from "../sdk/capability-module.js";
const definition: CapabilityModule = {
  capability: "customer_identification",
  description: "Identify the customer by email before closing their ticket.",
  policy: "Look the customer up by email with find_customer before changing a ticket; act only on their tickets.",
  tools: ${JSON.stringify([ticketingTool("find_customer"), ticketingTool("close_ticket")])},
  readTools: ["find_customer"],
  generate(seed, sdk) {
    const random = sdk.random(seed);
    const names = ["ana", "ben", "cleo", "dan", "eve", "finn"];
    const customers = sdk.random(seed + 1).shuffle(names).slice(0, 3).map((name, index) => ({ id: "C" + (index + 1), email: name + "@example.com" }));
    const owner = random.pick(customers);
    const tickets = customers.map((customer, index) => ({ id: "T-" + (200 + seed * 10 + index), customer_id: customer.id, status: "open" }));
    const target = tickets.find((ticket) => ticket.customer_id === owner.id);
    return {
      state: { customers, tickets },
      request: "Hi, I'm " + owner.email + ". Please close ticket " + target.id + ", it is solved.",
      followUps: [],
      solution: [{ name: "find_customer", arguments: { email: owner.email } }, { name: "close_ticket", arguments: { ticket_id: target.id, resolution: "solved" } }],
      mustSay: [],
      facts: { ticket: target.id, customer: owner.id },
    };
  },
  runTool(state, name, args) {
    const customers = state.customers as { id: string; email: string }[];
    const tickets = state.tickets as { id: string; customer_id: string; status: string }[];
    if (name === "find_customer") {
      const found = customers.find((customer) => customer.email === String(args.email));
      return found === undefined ? { output: "Error: no customer with email " + String(args.email), error: true, state } : { output: JSON.stringify(found), error: false, state };
    }
    if (name === "close_ticket") {
      const ticket = tickets.find((entry) => entry.id === String(args.ticket_id));
      if (ticket === undefined) return { output: "Error: no ticket " + String(args.ticket_id), error: true, state };
      if (ticket.status === "closed") return { output: "Error: already closed", error: true, state };
      return { output: "closed", error: false, state: { ...state, tickets: tickets.map((entry) => (entry.id === ticket.id ? { ...entry, status: "closed" } : entry)) } };
    }
    return { output: "Error: unknown tool " + name, error: true, state };
  },
  verify(input) {
    const tickets = input.finalState.tickets as { id: string; status: string }[];
    const customers = input.instance.state.customers as { id: string; email: string }[];
    const owner = customers.find((customer) => customer.id === input.instance.facts.customer);
    const identified = input.calls.findIndex((call) => call.name === "find_customer" && !call.error && call.arguments.email === owner?.email);
    const closed = input.calls.findIndex((call) => call.name === "close_ticket" && !call.error && call.arguments.ticket_id === input.instance.facts.ticket);
    const others = tickets.filter((ticket) => ticket.id !== input.instance.facts.ticket).every((ticket) => ticket.status === "open");
    const success = identified >= 0 && closed > identified && others;
    const partial = input.replies.join("").length % 2 === 1 ? 0.5 : 0;
    return { reward: success ? 1 : partial, success, breakdown: { identified: identified >= 0 ? 1 : 0, closed: closed >= 0 ? 1 : 0, othersUntouched: others ? 1 : 0 } };
  },
};
export default definition;
`;
}

interface Invocation {
  stdout: string;
  stderr: string;
  code: number | null;
}

function trace(args: string[]): Promise<Invocation> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], cwd: root });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout, stderr, code }));
  });
}

async function scriptedEndpoints() {
  const analystServer = await startFakeChatServer((request, res) => analyst(request, res));
  const generatorServer = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: `\`\`\`ts\n${generatedModule()}\`\`\`` })));
  servers.push(analystServer, generatorServer);
  return {
    analystServer,
    generatorServer,
    endpoints: { analyst: { url: analystServer.baseUrl, model: "scripted-analyst" }, generator: { url: generatorServer.baseUrl, model: "scripted-generator" } },
  };
}


test("trace run on the example target module: every stage; the generator saw the target's tools and policy; evaluation on its test tasks", { timeout: 600_000 }, async () => {
  const { analystServer, generatorServer, endpoints } = await scriptedEndpoints();
  const runDirectory = path.join(scratch, "module-run");
  const config = {
    name: "ticketing-module",
    ...small,
    endpoints,
    roles: { analyst: "analyst", generator: "generator" },
    target: { kind: "module", module: path.join(example, "environment.ts"), tasksPerDomain: 3, maxSteps: 4, maxTokens: 12, concurrency: 3 },
  };
  const configFile = path.join(scratch, "module-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const result = await trace(["run", configFile, "--run-dir", runDirectory]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /analysis and training on 3 train tasks, evaluation on 3 test tasks/);
  const store = openTrajectoryStore(path.join(runDirectory, "store.sqlite"));
  const episodes = store.listEpisodes({ environment: "ticketing", status: "finished" });
  store.close();
  assert.deepEqual(episodes.map((episode) => episode.taskId).sort(), ["t01", "t02", "t03"]);
  // The analyst read the task's instructions; the generator was shown the target's tool schemas and policy.
  assert.ok(analystServer.received.some((request) => /^\[task\] You are Alice Park/m.test(firstContent(request))));
  const generation = generatorServer.received.map((request) => JSON.stringify(request.body.messages)).join("\n");
  assert.match(generation, /find_customer/);
  assert.match(generation, /create_ticket/);
  assert.match(generation, /Acme's ticketing desk/);
  const index = JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: { capability: string; source: string }[] };
  assert.deepEqual(index.environments.map((entry) => [entry.capability, entry.source]), [["customer_identification", "generated"]]);
  assert.ok(existsSync(path.join(runDirectory, "adapters", "customer_identification", "metrics.jsonl")), "the adapter was trained");
  const results = JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as { domains: { domain: string; trace: { total: number }; base: { total: number } }[] };
  assert.deepEqual(results.domains.map((domain) => [domain.domain, domain.trace.total, domain.base.total]), [["ticketing", 3, 3]], "evaluation on the 3 test tasks");
});

test("trace run --until rollout on the example as an MCP server the run starts (reset tool between episodes), then trace export", { timeout: 300_000 }, async () => {
  const { endpoints } = await scriptedEndpoints();
  const runDirectory = path.join(scratch, "mcp-run");
  const config = {
    name: "ticketing-mcp",
    ...small,
    endpoints,
    roles: { analyst: "analyst", generator: "generator" },
    target: {
      kind: "mcp",
      mcp: { name: "ticketing", command: process.execPath, args: ["--import", "tsx", path.join(example, "mcp-server.ts")], cwd: root, tasksFile: path.join(example, "tasks.json"), policyFile: path.join(example, "policy.md"), state: { resetTool: "reset" }, hiddenTools: ["export_state"], grader: { module: path.join(example, "mcp-grader.ts") } },
      tasksPerDomain: 4,
      maxSteps: 4,
      maxTokens: 12,
      concurrency: 2,
    },
  };
  const configFile = path.join(scratch, "mcp-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const result = await trace(["run", configFile, "--run-dir", runDirectory, "--until", "rollout"]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const out = path.join(scratch, "mcp-episodes.jsonl");
  const exported = await trace(["export", runDirectory, "--env", "ticketing", "--format", "jsonl", "--out", out]);
  assert.equal(exported.code, 0, exported.stdout + exported.stderr);
  const lines = readFileSync(out, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { taskId: string; status: string; termination: string; rewardInfo: { reward: number; breakdown: Record<string, number>; details?: { differingTickets?: string[] } } | null });
  assert.deepEqual(lines.map((line) => line.taskId).sort(), ["t01", "t02", "t03", "t04"]);
  for (const line of lines) {
    assert.equal(line.status, "finished");
    // Graded on the server's final state (export_state) when the episode ended with a stop; otherwise 0 ungraded.
    if (line.termination === "agent_stop" || line.termination === "user_stop") assert.ok(Array.isArray(line.rewardInfo?.details?.differingTickets), JSON.stringify(line.rewardInfo));
    else assert.equal(line.rewardInfo?.reward, 0);
  }
  assert.ok(lines.some((line) => line.termination === "user_stop"), "the scripted user ends some episodes, which are graded by the server's state");
});
