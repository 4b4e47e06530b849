/** A finished chat completion replayed as OpenAI `chat.completion.chunk` server-sent events (for upstreams that cannot stream). */
import { z } from "zod";

const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const choiceSchema = z.looseObject({
  index: z.number().int().nonnegative(),
  message: z.looseObject({
    role: z.string().optional(),
    content: z.string().nullable().optional(),
    tool_calls: z.array(toolCallSchema).nullable().optional(),
  }),
  finish_reason: z.string().nullable(),
  logprobs: z.unknown().optional(),
});

/** The parts of a `chat.completion` body that streaming needs; other fields are kept and passed along. */
export const chatCompletionBodySchema = z.looseObject({
  id: z.string(),
  created: z.number(),
  model: z.string(),
  choices: z.array(choiceSchema),
  usage: z.unknown().optional(),
});

/** A `chat.completion` body as an OpenAI-compatible server returns it. */
export type ChatCompletionBody = z.infer<typeof chatCompletionBodySchema>;

type Choice = z.infer<typeof choiceSchema>;
type Chunk = Record<string, unknown>;

/** What the request's `stream_options` asked for. */
export interface CompletionChunkOptions {
  /** `stream_options.include_usage`: every chunk carries `usage: null` and a last chunk with no choices carries the usage. */
  includeUsage?: boolean;
}

const COMPLETION_FIELDS = new Set(["id", "object", "created", "model", "system_fingerprint", "choices", "usage"]);
const CHOICE_FIELDS = new Set(["index", "message", "finish_reason", "logprobs"]);
const MESSAGE_DELTA_FIELDS = new Set(["role", "content", "tool_calls"]);

/** The fields of `value` whose names are not in `known`. */
function otherFields(value: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !known.has(key)));
}

/** The deltas of one choice, in OpenAI's order: role, other message fields, content, each tool call, then the finish. */
function choiceDeltas(choice: Choice): { delta: Record<string, unknown>; finishReason: string | null }[] {
  const { message } = choice;
  const deltas: { delta: Record<string, unknown>; finishReason: string | null }[] = [];
  deltas.push({ delta: { role: "assistant", content: typeof message.content === "string" ? "" : null }, finishReason: null });
  const extra = otherFields(message, MESSAGE_DELTA_FIELDS);
  if (Object.keys(extra).length > 0) deltas.push({ delta: extra, finishReason: null });
  if (typeof message.content === "string" && message.content !== "") deltas.push({ delta: { content: message.content }, finishReason: null });
  for (const [index, call] of (message.tool_calls ?? []).entries()) {
    const toolCall = { index, id: call.id, type: call.type ?? "function", function: { name: call.function.name, arguments: call.function.arguments } };
    deltas.push({ delta: { tool_calls: [toolCall] }, finishReason: null });
  }
  deltas.push({ delta: {}, finishReason: choice.finish_reason ?? "stop" });
  return deltas;
}

/** The chunks of one choice; its logprobs ride on the first chunk after the role, its other fields on the first. */
function choiceChunks(choice: Choice): Record<string, unknown>[] {
  const deltas = choiceDeltas(choice);
  const logprobsAt = Math.min(1, deltas.length - 1);
  const extra = otherFields(choice, CHOICE_FIELDS);
  return deltas.map(({ delta, finishReason }, position) => ({
    index: choice.index,
    delta,
    logprobs: position === logprobsAt ? (choice.logprobs ?? null) : null,
    finish_reason: finishReason,
    ...(position === 0 ? extra : {}),
  }));
}

/** The completion as the chunks an OpenAI server would have streamed (choices one after another). */
export function completionChunks(completion: ChatCompletionBody, options: CompletionChunkOptions = {}): Chunk[] {
  const head = {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    ...(completion.system_fingerprint === undefined ? {} : { system_fingerprint: completion.system_fingerprint }),
  };
  const usage = options.includeUsage === true ? { usage: null } : {};
  const chunks: Chunk[] = completion.choices.flatMap((choice) => choiceChunks(choice).map((chunkChoice) => ({ ...head, choices: [chunkChoice], ...usage })));
  if (chunks.length > 0) Object.assign(chunks[0]!, otherFields(completion, COMPLETION_FIELDS));
  if (options.includeUsage === true) chunks.push({ ...head, choices: [], usage: completion.usage ?? null });
  return chunks;
}

/** Server-sent events text: one `data: {chunk}` event per chunk, then `data: [DONE]`. */
export function serverSentEvents(chunks: readonly Chunk[]): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + "data: [DONE]\n\n";
}
