/** Test support: a local node:http server that plays an OpenAI/vLLM chat-completions endpoint, scripted per request. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** Answers one request; `index` counts requests from 0. Leaving `res` unanswered plays a hung server. */
export type FakeHandler = (request: ReceivedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface FakeChatServer {
  /** e.g. `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  received: ReceivedRequest[];
  /** Most requests ever in flight at once. */
  readonly peakInFlight: number;
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** A minimal OpenAI success body. */
export function chatBody(message: Record<string, unknown>, extra: Record<string, unknown> = {}, usage = { prompt_tokens: 10, completion_tokens: 2 }): Record<string, unknown> {
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 0,
    model: "test-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    ...extra,
  };
}

export async function startFakeChatServer(handler: FakeHandler): Promise<FakeChatServer> {
  const received: ReceivedRequest[] = [];
  let inFlight = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    res.on("close", () => {
      inFlight -= 1;
    });
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const request: ReceivedRequest = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
      const index = received.length;
      received.push(request);
      Promise.resolve(handler(request, res, index)).catch((error: unknown) => sendJson(res, 500, { error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    get peakInFlight() {
      return peak;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
