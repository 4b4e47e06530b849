/**
 * ToolSandbox's user simulator (`OpenAIAPIUser`) on an OpenAI-compatible endpoint: its first turn is the scenario's
 * own first user message; afterwards the model sees what ToolSandbox shows its user — the role-play system prompts,
 * the few-shot exchange and the conversation's user and agent text turns, roles flipped — and is offered the
 * `end_conversation` tool after each agent turn. Calling it ends the conversation (`END_CONVERSATION_TOKEN`).
 */
import type { ChatClient } from "../../models/chat-client.js";
import type { ChatRequest } from "../../models/chat-types.js";
import type { Message, SampledTokens } from "../../spec/message.js";
import { END_CONVERSATION_TOKEN } from "./conversation-replay.js";
import { firstUserMessage } from "./environment.js";
import type { ScenarioData } from "./export-schema.js";

/** The user side of a conversation (structurally the rollout layer's `SimulatedUser`). */
export interface ToolSandboxUser {
  respond(conversation: readonly Message[]): Promise<{ content: string; tokens?: SampledTokens }>;
}

/** The messages ToolSandbox's user model receives, given the conversation so far (agent's side, system excluded). */
export function userSimulatorMessages(scenario: ScenarioData, conversation: readonly Message[]): Message[] {
  const messages: Message[] = [];
  const firstUser = scenario.starting_context.first_user_sandbox_message_index;
  for (const message of scenario.messages) {
    if (message.sandbox_message_index > firstUser) break;
    const visible = message.visible_to ?? [message.sender, message.recipient];
    if (!visible.includes("USER") || message.content === null) continue;
    if (message.sender === "SYSTEM" && message.recipient === "USER") messages.push({ role: "system", content: message.content });
    else if (message.sender === "AGENT" && message.recipient === "USER") messages.push({ role: "user", content: message.content });
    else if (message.sender === "USER" && message.recipient === "AGENT") messages.push({ role: "assistant", content: message.content });
  }
  let first = true;
  for (const message of conversation) {
    if (message.role === "user") {
      if (first) {
        first = false;
        continue;
      }
      messages.push({ role: "assistant", content: message.content });
    } else if (message.role === "assistant" && (message.tool_calls?.length ?? 0) === 0 && message.content !== null) {
      messages.push({ role: "user", content: message.content });
    }
  }
  return messages;
}

export interface ToolSandboxUserOptions {
  client: ChatClient;
  scenario: ScenarioData;
  sampling?: Omit<ChatRequest, "messages" | "tools">;
}

/** An LLM user as ToolSandbox runs it. */
export function createToolSandboxUser(options: ToolSandboxUserOptions): ToolSandboxUser {
  const tools = options.scenario.user_tool_schemas.map((schema) => ({ type: "function" as const, function: { ...schema.function } }));
  return {
    async respond(conversation) {
      if (!conversation.some((message) => message.role === "user")) return { content: firstUserMessage(options.scenario) };
      const last = conversation.at(-1);
      const offerTools = last?.role === "assistant";
      const request: ChatRequest = { ...options.sampling, messages: userSimulatorMessages(options.scenario, conversation) };
      if (offerTools) request.tools = tools;
      const completion = await options.client.complete(request);
      const ended = (completion.message.tool_calls ?? []).some((call) => call.function.name === "end_conversation");
      const content = ended ? END_CONVERSATION_TOKEN : (completion.message.content ?? "");
      return completion.message.tokens === undefined ? { content } : { content, tokens: completion.message.tokens };
    },
  };
}

/** A scripted user for tests: the scenario's first message, then `lines`, then `end_conversation`. */
export function createToolSandboxScriptedUser(scenario: ScenarioData, lines: readonly string[]): ToolSandboxUser {
  const script = [firstUserMessage(scenario), ...lines];
  let next = 0;
  return {
    respond() {
      const content = next < script.length ? (script[next] as string) : END_CONVERSATION_TOKEN;
      next += 1;
      return Promise.resolve({ content });
    },
  };
}
