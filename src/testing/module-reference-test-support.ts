/** Test support: conversations with a capability module, built by actually running each tool call. */
import type { Message } from "../spec/message.js";
import type { Json, ModuleInstance, SolutionCall } from "../envs/modules/capability-module.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";
import { executeModuleToolCall } from "../envs/modules/module-tool-call.js";

/** One turn of the assistant: a tool call, or a text reply. */
export type ModuleStep = SolutionCall | string;

/**
 * The user's request, then each step: a tool call as an assistant message followed by the tool message with the
 * output of running it on the conversation's state so far, or an assistant text reply.
 */
export async function moduleConversation(runner: ModuleRunner, instance: ModuleInstance, steps: readonly ModuleStep[]): Promise<Message[]> {
  const messages: Message[] = [{ role: "user", content: instance.request }];
  let state: { [key: string]: Json } = instance.state;
  for (const [index, step] of steps.entries()) {
    if (typeof step === "string") {
      messages.push({ role: "assistant", content: step });
      continue;
    }
    const id = `call_${index}`;
    const argumentsText = JSON.stringify(step.arguments);
    const result = await executeModuleToolCall(runner, state, step.name, argumentsText);
    state = result.state;
    messages.push(
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: step.name, arguments: argumentsText } }] },
      { role: "tool", tool_call_id: id, content: result.output, ...(result.error ? { error: true } : {}) },
    );
  }
  return messages;
}
