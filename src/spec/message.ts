/** Chat messages in the OpenAI function-calling shape, shared by every environment, agent and model client. */

/** A function call requested by the assistant; `arguments` is the raw JSON text the model produced. */
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Token-level record of one sampled completion, kept when the server returns it (token-in / token-out). */
export interface SampledTokens {
  promptTokenIds: number[];
  completionTokenIds: number[];
  completionLogprobs: number[];
}

export interface SystemMessage {
  role: "system";
  content: string;
}

export interface UserMessage {
  role: "user";
  content: string;
}

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
  tokens?: SampledTokens;
}

export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
  /** True when the tool raised an error (the content then starts with `Error:` in τ²-style environments). */
  error?: boolean;
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

