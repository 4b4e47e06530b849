/**
 * A small `trace run` on the worked example `examples/ticketing/` as a target module, for end-to-end tests: scripted
 * analyst and generator endpoints (OpenAI-compatible fake servers) and settings that keep every stage to seconds on
 * CPU with the worker's tiny model. Used by the own-target test and the dashboard's browser test.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadTargetModule } from "../envs/custom/load-target-module.js";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer, type ReceivedRequest } from "./fake-chat-server.js";
import { SMALL_RUN_SETTINGS } from "./small-run-settings.js";

/** The repository root. */
export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(repositoryRoot, "bin/trace.js");
/** `examples/ticketing/`. */
export const ticketingExample = path.join(repositoryRoot, "examples/ticketing");

/** The first message of a chat request. */
export const firstContent = (request: ReceivedRequest): string => (request.body.messages as { content: string }[])[0]?.content ?? "";

/** A scripted analyst that discovers one capability and labels it LACKING on every failed trajectory, PRESENT on the rest. */
export function oneCapabilityAnalyst(capability: { name: string; description: string }): (request: ReceivedRequest, res: ServerResponse) => void {
  return (request, res) => {
    const prompt = firstContent(request);
    if (prompt.includes("capability discovery agent")) return sendJson(res, 200, chatBody({ content: JSON.stringify({ candidates: [{ ...capability, example_trajectories: [] }] }) }));
    const labels: Record<string, Record<string, string>> = {};
    for (const match of prompt.matchAll(/^### (\S+) — (FAILED|PASSED)/gm)) labels[match[1]!] = { [capability.name]: match[2] === "FAILED" ? "LACKING" : "PRESENT" };
    sendJson(res, 200, chatBody({ content: JSON.stringify({ labels }) }));
  };
}

/** The ticketing run's analyst. */
const analyst = oneCapabilityAnalyst({ name: "customer_identification", description: "Identifies the customer by email before acting on a ticket. LACKING when a ticket is changed without it." });

const { module: ticketing } = await loadTargetModule(path.join(ticketingExample, "environment.ts"));
const ticketingTool = (name: string) => {
  const tool = ticketing.tools.find((entry) => entry.name === name)!;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
};

/**
 * What the scripted generator answers: a capability module on the target's own tools (find_customer, close_ticket,
 * schemas as the target gives them): close the ticket the user names, after identifying them. An unsolved episode earns
 * 0.5 when its replies have an odd total length, so the tiny policy's groups differ and GRPO updates the adapter.
 */
export function generatedModule(): string {
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

/** A finished `trace` process. */
export interface Invocation {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** A `trace` process started in the repository root: the child (to signal) and its result when it ends. */
export interface StartedTrace {
  child: ChildProcess;
  finished: Promise<Invocation>;
}

/** Starts `trace ARGS` in the repository root. */
export function startTrace(args: string[]): StartedTrace {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], cwd: repositoryRoot });
  const finished = new Promise<Invocation>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ stdout, stderr, code }));
  });
  return { child, finished };
}

/** Runs `trace ARGS` in the repository root. */
export function trace(args: string[]): Promise<Invocation> {
  return startTrace(args).finished;
}

/** Starts the scripted analyst and generator (closed by the caller through `servers`). */
export async function scriptedEndpoints(servers: FakeChatServer[]) {
  const analystServer = await startFakeChatServer((request, res) => analyst(request, res));
  const generatorServer = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: `\`\`\`ts\n${generatedModule()}\`\`\`` })));
  servers.push(analystServer, generatorServer);
  return {
    analystServer,
    generatorServer,
    endpoints: { analyst: { url: analystServer.baseUrl, model: "scripted-analyst" }, generator: { url: generatorServer.baseUrl, model: "scripted-generator" } },
  };
}

/** Settings that keep every stage small (spread into a configuration). */
export const small = SMALL_RUN_SETTINGS;


/** The module-target run's configuration: every stage on 3 train and 3 test tasks; `overrides` replace top-level sections. */
export function ticketingModuleConfig(endpoints: Awaited<ReturnType<typeof scriptedEndpoints>>["endpoints"], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "ticketing-module",
    ...small,
    endpoints,
    roles: { analyst: "analyst", generator: "generator" },
    target: { kind: "module", module: path.join(ticketingExample, "environment.ts"), tasksPerDomain: 3, maxSteps: 4, maxTokens: 12, concurrency: 3 },
    ...overrides,
  };
}
