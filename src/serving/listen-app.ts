/** Serving a Hono app over HTTP on a port (0: a free one), with a close that also ends open keep-alive connections. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import type { Hono } from "hono";

/** An app listening on a port. */
export interface ListeningApp {
  /** `http://host:port` (IPv6 literals in brackets), no trailing slash. */
  origin: string;
  port: number;
  close(): Promise<void>;
}

/** Host as it goes in a URL (IPv6 literals in brackets). */
function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/** Starts listening; rejects with the server's error (e.g. EADDRINUSE). */
export async function listenApp(app: Hono, port: number, host: string): Promise<ListeningApp> {
  const server = createAdaptorServer({ fetch: app.fetch, overrideGlobalObjects: false }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    origin: `http://${urlHost(host)}:${bound}`,
    port: bound,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}
