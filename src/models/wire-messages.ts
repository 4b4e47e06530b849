/** Our messages → the OpenAI chat-completions wire shape (our extra fields such as `tokens` and `error` dropped). */
import type { Message, ToolCall } from "../spec/message.js";

export type WireMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

function toWireMessage(message: Message): WireMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content,
        tool_calls: calls.map((call) => ({ id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } })),
      };
    }
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
  }
}

export function toWireMessages(messages: readonly Message[]): WireMessage[] {
  return messages.map(toWireMessage);
}
