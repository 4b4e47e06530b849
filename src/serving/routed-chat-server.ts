/**
 * An OpenAI-compatible `/v1/chat/completions` server for a routed agent: each conversation is routed once on its first
 * user message, and every request is forwarded upstream as sent with only `model` replaced by the chosen adapter.
 */
import { Hono, type Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { z } from "zod";
import { listenApp } from "./listen-app.js";
import { createConversationRoutes, firstUserMessage, type RouteChoice } from "./conversation-routes.js";
import { chatCompletionBodySchema, completionChunks, serverSentEvents } from "./sse-completion.js";

/** The response header naming the adapter a chat request was answered with (`base` for the base model). */
export const ROUTE_HEADER = "x-trace-route";

/** An OpenAI-compatible server that samples the routed models. */
export interface UpstreamServer {
  /** Up to and including the API version, e.g. `http://127.0.0.1:8765/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` when set. */
  apiKey?: string;
}

/** What `createRoutedChatServer` needs: where to forward, how to route, what to call the model. */
export interface RoutedChatServerOptions {
  upstream: UpstreamServer;
  /** Chooses the model for a new conversation from its first user message's text. */
  route: (request: string) => Promise<RouteChoice>;
  /** The one model `/v1/models` lists (what clients put in `model`; any value is accepted). */
  servedModelName: string;
  /** Conversations whose route is remembered (default 10 000; the least recently used is forgotten first). */
  maxConversations?: number;
  /** Per upstream request, covering the whole answer (default 600 000 ms). */
  upstreamTimeoutMs?: number;
  /** Largest request body accepted (default 32 MiB; larger ones get 413). */
  maxBodyBytes?: number;
}

/** A server listening on a port. */
export interface ListeningChatServer {
  /** What an OpenAI client takes as its base URL, e.g. `http://127.0.0.1:8080/v1`. */
  url: string;
  port: number;
  /** Stops accepting requests and drops open connections. */
  close(): Promise<void>;
}

/** The server before it listens. */
export interface RoutedChatServer {
  /** Answers one request in process (what the HTTP server calls). */
  fetch(request: Request): Promise<Response>;
  /** Starts listening (`port` 0: a free one). */
  listen(port: number, host: string): Promise<ListeningChatServer>;
}

const chatRequestSchema = z.looseObject({
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
});

/** An OpenAI-style error answer `{error: {message, type, param, code}}`. */
function errorResponse(status: number, error: { message: string; type: string; code: string; param?: string }, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function invalidRequest(message: string, code: string, param?: string): Response {
  return errorResponse(400, { message, type: "invalid_request_error", code, ...(param === undefined ? {} : { param }) });
}

/** The request body, or the 400 answer that says what is wrong with it. */
async function readChatRequest(context: Context): Promise<{ body: z.infer<typeof chatRequestSchema> } | { refusal: Response }> {
  let value: unknown;
  try {
    value = JSON.parse(await context.req.text());
  } catch (error) {
    return { refusal: invalidRequest(`the request body is not JSON (${error instanceof Error ? error.message : String(error)})`, "invalid_json") };
  }
  const parsed = chatRequestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.length === 0 ? undefined : issue.path.join(".");
    return { refusal: invalidRequest(`${param ?? "body"}: ${issue.message}`, "invalid_body", param) };
  }
  if (firstUserMessage(parsed.data.messages) === undefined) return { refusal: invalidRequest('messages: no message with role "user" to route on', "no_user_message", "messages") };
  return { body: parsed.data };
}

/** The body sent upstream: the request with `model` replaced, and without `stream` / `stream_options` when we stream ourselves. */
function upstreamBody(body: Record<string, unknown>, model: string, streaming: boolean): Record<string, unknown> {
  const forwarded: Record<string, unknown> = { ...body, model };
  if (streaming) {
    delete forwarded.stream;
    delete forwarded.stream_options;
  }
  return forwarded;
}

/** The upstream's answer, read whole. */
interface UpstreamAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** JSON text as a value; undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
  return `${error.message}${cause}`;
}

/** Builds the server; nothing listens until `listen`. */
export function createRoutedChatServer(options: RoutedChatServerOptions): RoutedChatServer {
  const completionsUrl = `${options.upstream.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const upstreamHeaders: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.upstream.apiKey) upstreamHeaders.authorization = `Bearer ${options.upstream.apiKey}`;
  const timeoutMs = options.upstreamTimeoutMs ?? 600_000;
  const routes = createConversationRoutes({ route: options.route, maxConversations: options.maxConversations ?? 10_000 });

  /** Posts upstream and reads the whole answer; or the 502 / 504 answer when the upstream cannot be reached in time. */
  async function forward(body: Record<string, unknown>, clientSignal: AbortSignal, routeHeader: Record<string, string>): Promise<UpstreamAnswer | { failure: Response }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(completionsUrl, { method: "POST", headers: upstreamHeaders, body: JSON.stringify(body), signal: AbortSignal.any([clientSignal, timeout]) });
      return { status: response.status, contentType: response.headers.get("content-type") ?? "application/json", text: await response.text() };
    } catch (error) {
      if (timeout.aborted) return { failure: errorResponse(504, { message: `upstream ${completionsUrl} did not answer within ${timeoutMs} ms`, type: "upstream_error", code: "upstream_timeout" }, routeHeader) };
      return { failure: errorResponse(502, { message: `upstream ${completionsUrl} unreachable: ${describeFailure(error)}`, type: "upstream_error", code: "upstream_unreachable" }, routeHeader) };
    }
  }

  /** The upstream's completion replayed as server-sent events (or a 502 when it is not a completion). */
  function streamed(text: string, includeUsage: boolean, routeHeader: Record<string, string>): Response {
    const parsed = chatCompletionBodySchema.safeParse(parseJson(text));
    if (!parsed.success) {
      return errorResponse(502, { message: `upstream ${completionsUrl} answered with something that is not a chat completion: ${text.slice(0, 200)}`, type: "upstream_error", code: "upstream_invalid_response" }, routeHeader);
    }
    const events = serverSentEvents(completionChunks(parsed.data, { includeUsage }));
    return new Response(events, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...routeHeader } });
  }

  async function chatCompletions(context: Context): Promise<Response> {
    const request = await readChatRequest(context);
    if ("refusal" in request) return request.refusal;
    const { body } = request;
    let choice: RouteChoice;
    try {
      choice = await routes.routeFor(body.messages);
    } catch (error) {
      return errorResponse(502, { message: `routing failed: ${describeFailure(error)}`, type: "upstream_error", code: "routing_failed" });
    }
    const routeHeader = { [ROUTE_HEADER]: choice.capability === null ? "base" : choice.model };
    const streaming = body.stream === true;
    const forwarded = await forward(upstreamBody(body, choice.model, streaming), context.req.raw.signal, routeHeader);
    if ("failure" in forwarded) return forwarded.failure;
    const { status, contentType, text } = forwarded;
    if (streaming && status >= 200 && status < 300) return streamed(text, body.stream_options?.include_usage === true, routeHeader);
    return new Response(text, { status, headers: { "content-type": contentType, ...routeHeader } });
  }

  const app = new Hono();
  app.use("*", cors({ origin: "*", exposeHeaders: [ROUTE_HEADER] }));
  app.get("/health", (context) => context.json({ status: "ok", model: options.servedModelName }));
  app.get("/v1/models", (context) => context.json({ object: "list", data: [{ id: options.servedModelName, object: "model", created: 0, owned_by: "trace" }] }));
  const maxSize = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const tooLarge = () => errorResponse(413, { message: `the request body is larger than ${maxSize} bytes`, type: "invalid_request_error", code: "body_too_large" });
  app.post("/v1/chat/completions", bodyLimit({ maxSize, onError: tooLarge }), chatCompletions);
  app.notFound((context) => errorResponse(404, { message: `no route ${context.req.method} ${context.req.path}`, type: "invalid_request_error", code: "not_found" }));
  app.onError((error) => errorResponse(500, { message: describeFailure(error), type: "server_error", code: "internal_error" }));

  return {
    fetch: async (request) => app.fetch(request),
    listen: (port, host) => listen(app, port, host),
  };
}

async function listen(app: Hono, port: number, host: string): Promise<ListeningChatServer> {
  const listening = await listenApp(app, port, host);
  return { url: `${listening.origin}/v1`, port: listening.port, close: () => listening.close() };
}
