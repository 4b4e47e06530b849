/**
 * Successful synthetic trajectories for SFT: a capability environment's ground-truth solution played through the
 * environment adapter as a chat transcript in the agent loop's layout (system prompt, the greeting, the request, one assistant tool call per solution call with
 * its tool result, the closing reply), graded by the module; only transcripts graded 1 are kept.
 */
import type { Message, ToolCall } from "../../spec/message.js";
import type { ToolSpec } from "../../spec/tool-spec.js";
import type { ModuleEnvironment } from "../../envs/modules/module-environment.js";
import { solutionReply } from "../../envs/modules/module-policies.js";
import type { Task } from "../../spec/task.js";

/** One transcript with the tools offered and its grade. */
export interface SolutionConversation {
  taskId: string;
  messages: Message[];
  tools: readonly ToolSpec[];
  reward: number;
}

/** Plays the task's ground truth through `environment` and grades it. */
async function solutionConversation(environment: ModuleEnvironment, task: Task): Promise<SolutionConversation> {
  const instance = environment.instance(task);
  const episode = environment.start(task);
  const greeting = environment.rules.greeting;
  // The agent loop's layout: the greeting (when the rules have one) opens, then the user's request.
  const messages: Message[] = [
    { role: "system", content: environment.systemPrompt(task) },
    ...(greeting === undefined ? [] : [{ role: "assistant" as const, content: greeting }]),
    { role: "user", content: instance.request },
  ];
  for (const [number, call] of instance.solution.entries()) {
    const toolCall: ToolCall = { id: `call_${number}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
    messages.push({ role: "assistant", content: null, tool_calls: [toolCall] });
    const result = await episode.executeToolCall(toolCall);
    messages.push({ role: "tool", tool_call_id: toolCall.id, content: result.content, ...(result.error ? { error: true } : {}) });
  }
  messages.push({ role: "assistant", content: solutionReply(instance) });
  const graded = await environment.grade(task, messages.slice(1), "agent_stop");
  return { taskId: task.id, messages, tools: environment.tools(task), reward: graded.reward };
}

/** The solution transcripts of every task of each environment that grade 1. */
export async function successfulSolutionConversations(environments: readonly ModuleEnvironment[]): Promise<SolutionConversation[]> {
  const conversations: SolutionConversation[] = [];
  for (const environment of environments) {
    for (const task of environment.tasks()) {
      const conversation = await solutionConversation(environment, task);
      if (conversation.reward === 1) conversations.push(conversation);
    }
  }
  return conversations;
}
