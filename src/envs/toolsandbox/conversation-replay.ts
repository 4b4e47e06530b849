/**
 * Plays a conversation in the project's message shape into ToolSandbox's tables, as its roles would have written
 * them: user and agent messages with their visibility, each tool call as an agent → execution-environment message
 * (Python code) answered by the execution environment (the printed `repr` or the exception line, the tool trace),
 * parallel calls tried in every order (a failing order stands), `end_conversation` as the user's last two messages,
 * and nothing after ToolSandbox's message limit. An unknown tool or unparsable arguments crash the scenario there.
 */
import type { Message, ToolCall } from "../../spec/message.js";
import type { Row, ScenarioData, ToolInfo } from "./export-schema.js";
import { parsePythonJson, pythonJsonDumpsUnicode, pythonRepr, type PyValue } from "./python-literal.js";
import { PythonException } from "./python-values.js";
import type { SandboxWorld } from "./sandbox-world.js";
import { TOOL_IMPLEMENTATIONS } from "./tool-registry.js";
import { bindArguments, traceArguments, validateType, type NestedCall } from "./tool-runtime.js";

/** What the user sends to end the conversation (its `end_conversation` tool call). */
export const END_CONVERSATION_TOKEN = "###STOP###";

/** Parallel calls beyond this many are executed in the given order only (ToolSandbox tries all n! orders). */
export const MAX_PERMUTED_CALLS = 6;

/** One execution-environment response. */
export interface ToolResponse {
  callId: string;
  functionName: string;
  content: string;
  exception: string | null;
  trace: string | null;
}

/** The scenario facts tool execution needs: the tools' signatures and the agent-facing → execution names. */
export interface ToolContext {
  tools: Readonly<Record<string, ToolInfo>>;
  agentToExecution: ReadonlyMap<string, string>;
}

/** Builds the tool context of a scenario (tool-name scrambling included). */
export function toolContext(tools: Readonly<Record<string, ToolInfo>>, scenario: ScenarioData): ToolContext {
  return { tools, agentToExecution: new Map(scenario.agent_tools.map((tool) => [tool.agent_facing_name, tool.execution_name])) };
}

/** The Python code ToolSandbox's agent role writes for a tool call. */
export function toolCallCode(callId: string, executionName: string, args: PyValue): string {
  return `${callId}_parameters = ${pythonRepr(args)}\n${callId}_response = ${executionName}(**${callId}_parameters)\nprint(repr(${callId}_response))`;
}

function exceptionLine(error: PythonException): string {
  const detail = error.pythonType === "KeyError" && !/^['"]/.test(error.detail) ? `'${error.detail}'` : error.detail;
  return detail === "" ? error.pythonType : `${error.pythonType}: ${detail}`;
}

/** Runs one tool (execution-facing name) with parsed keyword arguments. */
export function runTool(world: SandboxWorld, context: ToolContext, executionName: string, args: PyValue): { result: PyValue; trace: string } {
  const info = context.tools[executionName];
  const implementation = TOOL_IMPLEMENTATIONS[executionName];
  if (info === undefined || implementation === undefined) throw new PythonException("NameError", `name '${executionName}' is not defined`);
  const bound = bindArguments(info, executionName, args);
  if (implementation.typechecked) for (const parameter of info.signature) if (parameter.annotation !== null) validateType(bound[parameter.name] ?? null, parameter.name, parameter.annotation);
  const nested: NestedCall = (name, nestedArgs) => (TOOL_IMPLEMENTATIONS[name] as NonNullable<(typeof TOOL_IMPLEMENTATIONS)[string]>).run(world, nestedArgs, nested);
  const result = implementation.run(world, bound, nested);
  return { result, trace: pythonJsonDumpsUnicode({ tool_name: executionName, arguments: traceArguments(bound), result }) };
}

interface PendingCall {
  callId: string;
  agentName: string;
  executionName: string;
  args: PyValue;
}

function respondOnce(world: SandboxWorld, context: ToolContext, calls: readonly PendingCall[]): ToolResponse[] {
  return calls.map((call) => {
    try {
      const { result, trace } = runTool(world, context, call.executionName, call.args);
      return { callId: call.callId, functionName: call.agentName, content: pythonRepr(result), exception: null, trace };
    } catch (error) {
      if (!PythonException.isInstance(error)) throw error;
      const line = exceptionLine(error);
      return { callId: call.callId, functionName: call.agentName, content: line, exception: line, trace: null };
    }
  });
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  const out: T[][] = [];
  items.forEach((item, index) => {
    for (const rest of permutations([...items.slice(0, index), ...items.slice(index + 1)])) out.push([item, ...rest]);
  });
  return out;
}

/** `respond_to_messages_set_all_order_permutations`: the responses that stand, and the world they leave. */
function respondToCalls(world: SandboxWorld, context: ToolContext, calls: readonly PendingCall[]): ToolResponse[] {
  if (calls.length <= 1 || calls.length > MAX_PERMUTED_CALLS) return respondOnce(world, context, calls);
  let first: { responses: ToolResponse[]; world: SandboxWorld } | undefined;
  for (const order of permutations(calls)) {
    const trial = world.clone();
    const responses = respondOnce(trial, context, order);
    if (first === undefined) first = { responses, world: trial };
    if (responses.some((response) => response.exception !== null)) {
      world.adopt(trial);
      return responses;
    }
  }
  world.adopt((first as { world: SandboxWorld }).world);
  return (first as { responses: ToolResponse[] }).responses;
}

/** Why a conversation crashed in ToolSandbox (scored 0), if it did. */
export interface ReplayResult {
  crash: string | null;
  /** Responses of every executed call, by call id (what the agent was shown). */
  responses: Map<string, ToolResponse>;
}

/** Parses an agent's tool calls; an unknown tool or bad JSON is the crash ToolSandbox's agent role raises. */
export function pendingCalls(context: ToolContext, calls: readonly ToolCall[]): PendingCall[] {
  return calls.map((call) => {
    const executionName = context.agentToExecution.get(call.function.name);
    if (executionName === undefined) throw new PythonException("KeyError", `Agent tool call agent_facing_tool_name='${call.function.name}' is not a known allowed tool.`);
    return { callId: call.id, agentName: call.function.name, executionName, args: parsePythonJson(call.function.arguments === "" ? "{}" : call.function.arguments) };
  });
}

/** Executes a batch of agent tool calls against the world (the live episode's path). */
export function executeCalls(world: SandboxWorld, context: ToolContext, calls: readonly ToolCall[]): ToolResponse[] {
  return respondToCalls(world, context, pendingCalls(context, calls));
}

/**
 * Replays `messages` (the conversation after the system prompt; its first user message is the scenario's own) into
 * `world`, which holds the scenario's start.
 */
export function replayConversation(world: SandboxWorld, context: ToolContext, scenario: ScenarioData, messages: readonly Message[]): ReplayResult {
  const responses = new Map<string, ToolResponse>();
  const limit = scenario.max_messages + scenario.starting_context.max_sandbox_message_index;
  const open = () => world.lastMessage()?.conversation_active !== false && world.maxSandboxMessageIndex < limit;
  let sawFirstUser = false;
  try {
    for (const message of messages) {
      if (message.role === "system") continue;
      if (message.role === "tool") continue;
      if (!open()) break;
      if (message.role === "user") {
        if (!sawFirstUser) {
          sawFirstUser = true;
          continue;
        }
        if (message.content.includes(END_CONVERSATION_TOKEN)) {
          world.addMessages([{ sender: "USER", recipient: "EXECUTION_ENVIRONMENT", content: "call_user_end_parameters = {}\ncall_user_end_response = end_conversation(**call_user_end_parameters)\nprint(repr(call_user_end_response))", conversation_active: false, visible_to: ["USER", "EXECUTION_ENVIRONMENT"] }]);
          world.addMessages([{ sender: "EXECUTION_ENVIRONMENT", recipient: "USER", content: "None", conversation_active: false, tool_trace: ['{"tool_name": "end_conversation", "arguments": {}, "result": null}'], visible_to: ["EXECUTION_ENVIRONMENT", "USER"] }]);
          break;
        }
        world.addMessages([{ sender: "USER", recipient: "AGENT", content: message.content, visible_to: ["USER", "AGENT"] }]);
        continue;
      }
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) {
        if (message.content === null || message.content === "") throw new PythonException("AssertionError", "the agent sent no content");
        world.addMessages([{ sender: "AGENT", recipient: "USER", content: message.content, visible_to: ["AGENT", "USER"] }]);
        continue;
      }
      const pending = pendingCalls(context, calls);
      world.addMessages(pending.map((call): Row => ({ sender: "AGENT", recipient: "EXECUTION_ENVIRONMENT", content: toolCallCode(call.callId, call.executionName, call.args), openai_tool_call_id: call.callId, openai_function_name: call.agentName, visible_to: ["AGENT", "EXECUTION_ENVIRONMENT"] })));
      if (!open()) break;
      const answered = respondToCalls(world, context, pending);
      world.addMessages(
        answered.map((response): Row => ({
          sender: "EXECUTION_ENVIRONMENT",
          recipient: "AGENT",
          content: response.content,
          openai_tool_call_id: response.callId,
          openai_function_name: response.functionName,
          tool_call_exception: response.exception,
          tool_trace: response.trace === null ? null : [response.trace],
          visible_to: ["EXECUTION_ENVIRONMENT", "AGENT"],
        })),
      );
      for (const response of answered) responses.set(response.callId, response);
    }
  } catch (error) {
    if (!PythonException.isInstance(error)) throw error;
    return { crash: error.pythonType, responses };
  }
  return { crash: null, responses };
}
