/**
 * Rebuilds what the verifier sees from a conversation, as τ²-bench grades: the assistant's tool calls are replayed in
 * order through `runTool` from the instance's initial state (the episode's own state is not trusted), and the
 * assistant's text messages are its replies.
 */
import type { ModuleInstance, SolutionCall, VerifierInput } from "./capability-module.js";
import type { Message } from "../../spec/message.js";
import type { ModuleRunner } from "./module-runner.js";
import { executeModuleToolCall } from "./module-tool-call.js";

/** Replays `calls` (raw argument text) from the initial state and collects the verifier's input. */
export async function replayCalls(
  runner: ModuleRunner,
  instance: ModuleInstance,
  calls: readonly { name: string; argumentsText: string }[],
  replies: readonly string[],
): Promise<VerifierInput> {
  let state = instance.state;
  const executed: VerifierInput["calls"] = [];
  for (const call of calls) {
    const result = await executeModuleToolCall(runner, state, call.name, call.argumentsText);
    state = result.state;
    executed.push({ name: result.name, arguments: result.arguments, output: result.output, error: result.error });
  }
  return { instance, calls: executed, replies: [...replies], finalState: state };
}

/** The verifier's input for a finished conversation. */
export function verifierInputFromMessages(runner: ModuleRunner, instance: ModuleInstance, messages: readonly Message[]): Promise<VerifierInput> {
  const calls: { name: string; argumentsText: string }[] = [];
  const replies: string[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) calls.push({ name: call.function.name, argumentsText: call.function.arguments });
    if (message.content != null && message.content.trim() !== "") replies.push(message.content);
  }
  return replayCalls(runner, instance, calls, replies);
}

/** The verifier's input when a policy makes `calls` (already structured) and says `replies`. */
export function verifierInputFromCalls(
  runner: ModuleRunner,
  instance: ModuleInstance,
  calls: readonly SolutionCall[],
  replies: readonly string[],
): Promise<VerifierInput> {
  return replayCalls(runner, instance, calls.map((call) => ({ name: call.name, argumentsText: JSON.stringify(call.arguments) })), replies);
}
