/** Routing per conversation: the first user message decides once, later turns of the same conversation reuse the decision. */
import { createHash } from "node:crypto";

/** What the router chose for a conversation (a `RoutingDecision` fits). */
export interface RouteChoice {
  /** The router's label for the option. */
  label: string;
  /** The adapter's capability; null for the base model ("none of these"). */
  capability: string | null;
  /** The served model name to answer with upstream. */
  model: string;
}

/** A chat message as far as routing reads it. */
export interface RoutableMessage {
  role: string;
  content?: unknown;
}

/** The text of a message's content: a string as is, an array of content parts as its text parts joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part === "object" && part !== null && (part as { type?: unknown }).type === "text") {
      const text = (part as { text?: unknown }).text;
      if (typeof text === "string") texts.push(text);
    }
  }
  return texts.join("\n");
}

/** The first user message, or undefined when there is none. */
export function firstUserMessage(messages: readonly RoutableMessage[]): RoutableMessage | undefined {
  return messages.find((message) => message.role === "user");
}

/** A conversation's key: a hash of its first system message's content (if any) and its first user message's content. */
export function conversationKey(messages: readonly RoutableMessage[]): string {
  const system = messages.find((message) => message.role === "system");
  const user = firstUserMessage(messages);
  return createHash("sha256")
    .update(JSON.stringify([system?.content ?? null, user?.content ?? null]))
    .digest("hex");
}

/** Remembers each conversation's route; the least recently used conversation is forgotten past `maxConversations`. */
export interface ConversationRoutes {
  /** The conversation's route: the cached one, or the router's answer on the first user message (asked once, even when turns arrive together). */
  routeFor(messages: readonly RoutableMessage[]): Promise<RouteChoice>;
  /** Conversations remembered now. */
  readonly size: number;
}

/** A bounded route cache in front of `route`; a failed routing is not remembered. */
export function createConversationRoutes(options: { route: (request: string) => Promise<RouteChoice>; maxConversations: number }): ConversationRoutes {
  const routes = new Map<string, Promise<RouteChoice>>();
  return {
    routeFor(messages) {
      const key = conversationKey(messages);
      const cached = routes.get(key);
      if (cached !== undefined) {
        routes.delete(key);
        routes.set(key, cached);
        return cached;
      }
      const request = contentText(firstUserMessage(messages)?.content);
      const decided = Promise.resolve().then(() => options.route(request));
      routes.set(key, decided);
      decided.catch(() => {
        if (routes.get(key) === decided) routes.delete(key);
      });
      while (routes.size > options.maxConversations) routes.delete(routes.keys().next().value!);
      return decided;
    },
    get size() {
      return routes.size;
    },
  };
}
