/**
 * Gold trajectories: the task's gold actions executed as assistant tool calls, plus one assistant message stating
 * every `communicate_info` item, ended by the user. Grading one must give reward 1; it anchors the grader's tests.
 */
import type { Message } from "../../spec/message.js";
import type { Tau2DomainData } from "./domain-data.js";
import { AGENT_GREETING } from "./conversation-rules.js";
import type { Tau2Action, Tau2Task } from "./task-schema.js";

export interface GoldOptions {
  /** Replace the gold actions (e.g. a mutated copy); defaults to the task's own. */
  actions?: readonly Tau2Action[];
  /** Replace the communicated items; defaults to the task's `communicate_info`. */
  communicate?: readonly string[];
}

/** Builds the gold conversation of a task, executing each action on a fresh state to record its observation. */
export function goldConversation<Tables extends Record<string, object>>(
  data: Tau2DomainData<Tables>,
  task: Tau2Task,
  options: GoldOptions = {},
): Message[] {
  const state = data.database.createState();
  const messages: Message[] = [
    { role: "assistant", content: AGENT_GREETING },
    { role: "user", content: "Hello, I need help with my request." },
  ];
  const actions = options.actions ?? task.evaluation_criteria?.actions ?? [];
  actions.forEach((action, index) => {
    const id = `gold-${task.id}-${index}`;
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name: action.name, arguments: JSON.stringify(action.arguments) } }],
    });
    const result = data.toolKit.execute(state, action.name, action.arguments);
    messages.push({ role: "tool", tool_call_id: id, content: result.content, error: result.error });
  });
  const communicate = options.communicate ?? task.evaluation_criteria?.communicate_info ?? [];
  const summary = communicate.length > 0 ? `Here is what you asked for: ${communicate.join("; ")}.` : "Your request has been handled.";
  messages.push({ role: "assistant", content: summary });
  messages.push({ role: "user", content: "Thank you. ###STOP###" });
  return messages;
}
