/** A TCP port that is free on a host right now (the OS's choice for port 0); another process may still take it first. */
import { createServer } from "node:net";

export function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error(`could not read the port bound on ${host}`))));
    });
  });
}
