import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { CustomEnvironment } from "../envs/custom/custom-environment.js";
import type { ChatClient } from "../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { runEpisode } from "../rollout/agent-loop.js";
import { runRollouts } from "../rollout/rollout-runner.js";
import type { ToolCall } from "../spec/message.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { parsePipelineConfig } from "./pipeline-config.js";
import { closeTargetDomains, loadTargetDomains } from "./target-tasks.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const example = path.join(root, "examples/ticketing");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-custom-target-"));
after(async () => {
  await closeTargetDomains();
  rmSync(scratch, { recursive: true, force: true });
});

/** A policy that plays fixed turns: tool calls, then a final text. */
function scriptedPolicy(turns: (ToolCall[] | string)[]): ChatClient {
  let next = 0;
  return {
    complete() {
      const turn = turns[Math.min(next, turns.length - 1)]!;
      next += 1;
      const message = typeof turn === "string" ? { role: "assistant" as const, content: turn } : { role: "assistant" as const, content: null, tool_calls: turn };
      return Promise.resolve({ message, finishReason: "stop", usage: { promptTokens: 1, completionTokens: 1 }, raw: {} });
    },
    usage: () => ({ requests: 0, promptTokens: 0, completionTokens: 0 }),
  } as unknown as ChatClient;
}

const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });
const closeAlicesTicket = [[call("1", "find_customer", { email: "alice@example.com" })], [call("2", "close_ticket", { ticket_id: "T-101", resolution: "cache fix" })], "Closed it. ###STOP###"];

function config(target: Record<string, unknown>) {
  return parsePipelineConfig({ name: "custom", model: { path: path.join(scratch, "model") }, target, analysis: { labeler: "llm" }, endpoints: { a: { url: "http://127.0.0.1:9/v1", model: "m" } }, roles: { analyst: "a" } }, "test", { runDirectory: path.join(scratch, `run-${Math.random()}`) });
}

test("the example module target: 12 tasks (9 train, 3 test), its tools; the right calls score 1, closing the wrong ticket 0, an invalid argument is the agent's error", async () => {
  const [domain] = await loadTargetDomains(config({ kind: "module", module: path.join(example, "environment.ts") }));
  assert.equal(domain!.domain, "ticketing");
  assert.equal(domain!.tasks.length, 9);
  assert.deepEqual(domain!.evaluationTasks.map((task) => task.id), ["t10", "t11", "t12"]);
  const environment = domain!.environment as CustomEnvironment;
  assert.equal(environment.tools(domain!.tasks[0]!).length, 8);
  assert.equal(environment.toolKinds.get("find_customer"), "read");
  const task = environment.task("t01");
  const right = await runEpisode({ environment, task, policy: scriptedPolicy(closeAlicesTicket), user: domain!.makeUser(task) });
  assert.equal(right.trajectory.termination, "agent_stop");
  assert.equal(right.trajectory.reward?.reward, 1);
  const wrong = await runEpisode({ environment, task, policy: scriptedPolicy([[call("1", "close_ticket", { ticket_id: "T-102", resolution: "x" })], [call("2", "set_priority", { ticket_id: "T-101", priority: "extreme" })], "###STOP###"]), user: domain!.makeUser(task) });
  assert.equal(wrong.trajectory.reward?.reward, 0);
  assert.deepEqual(wrong.trajectory.reward?.details?.differingTickets, ["T-101", "T-102"]);
  const invalid = wrong.trajectory.messages.filter((message) => message.role === "tool")[1]!;
  assert.equal(invalid.role === "tool" && invalid.error, true);
  assert.match(invalid.content, /^Error: invalid arguments for set_priority: priority must be equal to one of the allowed values/);
  // Episodes do not share state: the first episode's close did not leak into the second's grade (T-101 differs there).
});

test("an MCP target (the example server on stdio, restarted per episode): tools discovered with the harness's hidden, episodes graded through the server's state", async () => {
  const [domain] = await loadTargetDomains(
    config({
      kind: "mcp",
      mcp: { name: "ticketing-mcp", command: process.execPath, args: ["--import", "tsx", path.join(example, "mcp-server.ts")], cwd: root, tasksFile: path.join(example, "tasks.json"), state: "restart", hiddenTools: ["export_state"], grader: { module: path.join(example, "mcp-grader.ts") } },
    }),
  );
  const environment = domain!.environment as CustomEnvironment;
  assert.deepEqual(environment.tools(domain!.tasks[0]!).map((tool) => tool.function.name).sort(), ["add_comment", "assign_ticket", "close_ticket", "create_ticket", "find_customer", "get_ticket", "list_tickets", "reset", "set_priority"]);
  assert.equal(environment.toolKinds.get("get_ticket"), "read");
  const task = environment.task("t01");
  const results = await Promise.all([0, 1].map(() => runEpisode({ environment, task, policy: scriptedPolicy(closeAlicesTicket), user: domain!.makeUser(task) })));
  assert.deepEqual(results.map((result) => result.trajectory.reward?.reward), [1, 1]);
  const refused = results[0]!.trajectory.messages.filter((message) => message.role === "tool");
  assert.equal(refused.length, 2);
});

test("an MCP server that dies mid-episode: that episode is recorded as an error naming the server, the others finish; a shared server with a reset tool runs episodes one at a time", async () => {
  const store = openTrajectoryStore(path.join(scratch, "store.sqlite"));
  try {
    const dying = await loadTargetDomains(
      config({
        kind: "mcp",
        mcp: { name: "dying", command: process.execPath, args: ["--import", "tsx", path.join(example, "mcp-server.ts")], cwd: root, env: { TRACE_TICKETING_EXIT_AFTER_CALLS: "3", TRACE_TICKETING_EXIT_MARKER: path.join(scratch, "exited") }, tasksFile: path.join(example, "tasks.json"), state: { resetTool: "reset" }, hiddenTools: ["export_state"], grader: { module: path.join(example, "mcp-grader.ts") } },
      }),
    );
    const environment = dying[0]!.environment;
    // Calls per episode: reset, find_customer, close_ticket, export_state. The first server exits on its 3rd call (the
    // first episode's close_ticket); the next episode starts the server again and finishes.
    const tasks = [environment.task("t01"), environment.task("t05")];
    const summary = await runRollouts({ environment, tasks, trials: 1, concurrency: 2, store, policy: undefined, makePolicy: () => scriptedPolicy(closeAlicesTicket), makeUser: dying[0]!.makeUser });
    assert.deepEqual([summary.failed, summary.finished], [1, 1]);
    const [failed] = store.listEpisodes({ environment: "dying", status: "failed" });
    assert.equal(failed!.taskId, "t01");
    assert.match(String(failed!.error), /TargetUnavailableError: target dying: the MCP server stopped answering during close_ticket/);
    const [finished] = store.listEpisodes({ environment: "dying", status: "finished" });
    assert.equal(finished!.taskId, "t05");
    // t05 asks for a comment; the scripted policy closes T-101 instead, graded on the restarted server's state.
    assert.equal(finished!.reward, 0);
  } finally {
    store.close();
  }
});

test("bad targets are one-line errors naming the problem", async () => {
  const write = (name: string, text: string) => {
    const file = path.join(scratch, name);
    writeFileSync(file, text);
    return file;
  };
  const tool = '{ name: "t", description: "", parameters: { type: "object", properties: {} } }';
  const cases: [string, RegExp][] = [
    [write("no-run.ts", `export default { name: "x", tools: [${tool}], tasks: [{ id: "a", instructions: "i" }], grade: () => 1 };`), /no-run\.ts: runTool: must be a function/],
    [write("bad-schema.ts", `export default { name: "x", tools: [{ name: "t", description: "", parameters: { type: "object", properties: { a: { type: "nonsense" } } } }], tasks: [{ id: "a", instructions: "i" }], runTool: () => 1, grade: () => 1 };`), /tools\[0\] \(t\)\.parameters: not a valid JSON Schema/],
    [write("dup.mjs", `export default { name: "x", tools: [${tool}], tasks: [{ id: "a", instructions: "i" }, { id: "a", instructions: "j" }], runTool: () => 1, grade: () => 1 };`), /tasks\[1\]\.id: duplicate task id "a"/],
    [write("syntax.ts", "export default {"), /syntax\.ts: cannot be imported/],
    [path.join(scratch, "missing.ts"), /missing\.ts: no such file/],
  ];
  for (const [file, expected] of cases) {
    await assert.rejects(loadTargetDomains(config({ kind: "module", module: file })), (error: Error) => {
      assert.equal(error.name, "TargetModuleError");
      assert.match(error.message, expected);
      assert.equal(error.message.includes("\n"), false);
      return true;
    });
  }
});

test("a grader that throws or returns a non-number fails the episode with the grader named; a thrown tool error is the agent's observation", async () => {
  const file = path.join(scratch, "graders.ts");
  writeFileSync(
    file,
    `export default { name: "graders", tools: [{ name: "echo", description: "", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }],
      tasks: [{ id: "throws", instructions: "i" }, { id: "string", instructions: "i" }, { id: "nan", instructions: "i" }],
      runTool: ({ arguments: args }) => { if (args.text === "no") throw new Error("refused"); return args.text; },
      grade: ({ task }) => { if (task.id === "throws") throw new Error("boom"); return task.id === "string" ? "yes" : { reward: Number.NaN }; } };`,
  );
  const [domain] = await loadTargetDomains(config({ kind: "module", module: file }));
  const environment = domain!.environment;
  const play = (id: string) => runEpisode({ environment, task: environment.task(id), policy: scriptedPolicy([[call("1", "echo", { text: "no" })], "###STOP###"]), user: domain!.makeUser(environment.task(id)) });
  await assert.rejects(play("throws"), /target graders: the grader of task throws threw: boom/);
  await assert.rejects(play("string"), /the grader of task string returned "yes", not a reward in \[0, 1\]/);
  await assert.rejects(play("nan"), /the grader of task nan returned \{"reward":null\}, not a reward/);
});

test("an MCP target graded by an LLM judge on the judge role, with the LLM user on the user role (scripted endpoints)", async () => {
  const server = await startFakeChatServer((request, res) => {
    const first = (request.body.messages as { role: string; content: string }[])[0]!;
    if (first.content.includes("You grade one conversation")) {
      // The judge: passes a conversation in which the ticket was closed.
      return sendJson(res, 200, chatBody({ content: `Verdict: {"reward": ${first.content.includes("close_ticket") ? 1 : 0}, "reason": "checked"}` }));
    }
    // The user: the request, then the stop token.
    const spoken = (request.body.messages as { role: string }[]).filter((message) => message.role === "assistant").length;
    sendJson(res, 200, chatBody({ content: spoken === 0 ? "Hi, alice@example.com here, please close T-101." : "Thanks! ###STOP###" }));
  });
  try {
    const [domain] = await loadTargetDomains(
      parsePipelineConfig(
        {
          name: "judged",
          model: { path: path.join(scratch, "model") },
          target: { kind: "mcp", user: "llm", mcp: { name: "judged", command: process.execPath, args: ["--import", "tsx", path.join(example, "mcp-server.ts")], cwd: root, tasksFile: path.join(example, "tasks.json"), state: "restart", grader: { judge: {} } } },
          analysis: { labeler: "llm" },
          endpoints: { scripted: { url: server.baseUrl, model: "scripted" } },
          roles: { analyst: "scripted", user: "scripted", judge: "scripted" },
        },
        "test",
        { runDirectory: path.join(scratch, "judged-run") },
      ),
    );
    const environment = domain!.environment;
    const task = environment.task("t01");
    const closing = await runEpisode({ environment, task, policy: scriptedPolicy([...closeAlicesTicket.slice(0, 2), "Done."]), user: domain!.makeUser(task) });
    assert.equal(closing.trajectory.termination, "user_stop");
    assert.deepEqual([closing.trajectory.reward?.reward, closing.trajectory.reward?.details?.judge], [1, "checked"]);
    const idle = await runEpisode({ environment, task, policy: scriptedPolicy(["I cannot help."]), user: domain!.makeUser(task) });
    assert.equal(idle.trajectory.reward?.reward, 0);
    const judgePrompt = server.received.map((request) => (request.body.messages as { content: string }[])[0]!.content).find((content) => content.includes("You grade one conversation"))!;
    assert.match(judgePrompt, /<rubric>\nThe final state of the tickets matches/);
    assert.ok(server.received.some((request) => (request.body.messages as { content: string }[])[0]!.content.includes("You are playing the role of a user")), "the LLM user's guidelines are the built-in ones");
  } finally {
    await server.close();
  }
});

test("grader failures through the rollout runner: each such episode is stored as an error naming the grader, the others finish", async () => {
  const file = path.join(scratch, "half-graders.ts");
  writeFileSync(
    file,
    `export default { name: "half", tools: [{ name: "noop", description: "", parameters: { type: "object", properties: {} } }],
      tasks: [{ id: "good", instructions: "i" }, { id: "bad", instructions: "i" }],
      runTool: () => "ok",
      grade: ({ task }) => (task.id === "good" ? 1 : "not a number") };`,
  );
  const [domain] = await loadTargetDomains(config({ kind: "module", module: file }));
  const store = openTrajectoryStore(path.join(scratch, "half.sqlite"));
  try {
    const summary = await runRollouts({ environment: domain!.environment, tasks: domain!.tasks, trials: 1, concurrency: 2, store, makePolicy: () => scriptedPolicy(["###STOP###"]), makeUser: domain!.makeUser });
    assert.deepEqual([summary.finished, summary.failed], [1, 1]);
    const [failed] = store.listEpisodes({ environment: "half", status: "failed" });
    assert.equal(failed!.taskId, "bad");
    assert.match(String(failed!.error), /TargetGradeError: target half: the grader of task bad returned "not a number", not a reward in \[0, 1\]/);
  } finally {
    store.close();
  }
});
