/**
 * Test support: a stand-in for `python -m trace_worker serve …`, run through a small shell wrapper that plays the
 * interpreter. TRACE_FAKE_WORKER_BEHAVIOUR picks what it does: `serve` (default: answer /health), `crash` (a Python-like
 * traceback on stderr, exit 3), `stubborn` (serve and ignore SIGTERM), `silent` (never listen), `port-taken` (fail
 * with "Address already in use" on the first TRACE_FAKE_WORKER_PORT_FAILURES starts, counted in TRACE_FAKE_WORKER_RECORD).
 * It appends its argv and the relevant environment to TRACE_FAKE_WORKER_RECORD (JSON lines) when that is set.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";

const argv = process.argv.slice(2);
const behaviour = process.env.TRACE_FAKE_WORKER_BEHAVIOUR ?? "serve";
const record = process.env.TRACE_FAKE_WORKER_RECORD;

function option(name: string): string | undefined {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : undefined;
}

const earlierStarts = record !== undefined && existsSync(record) ? readFileSync(record, "utf8").trim().split("\n").filter(Boolean).length : 0;
if (record !== undefined) {
  const { PYTHONPATH, PYTHONUNBUFFERED, TRACE_WORKER_API_KEY } = process.env;
  appendFileSync(record, JSON.stringify({ argv, cwd: process.cwd(), env: { PYTHONPATH, PYTHONUNBUFFERED, TRACE_WORKER_API_KEY }, pid: process.pid }) + "\n");
}

if (behaviour === "crash") {
  process.stderr.write("Loading the model…\nTraceback (most recent call last):\nFileNotFoundError: no config.json in the model directory\n");
  process.exit(3);
}
if (behaviour === "port-taken" && earlierStarts < Number(process.env.TRACE_FAKE_WORKER_PORT_FAILURES ?? "1")) {
  process.stderr.write("OSError: [Errno 98] Address already in use\n");
  process.exit(1);
}
if (behaviour === "stubborn") {
  process.on("SIGTERM", () => process.stderr.write("ignoring SIGTERM\n"));
}
if (behaviour !== "silent") {
  const server = createServer((request, response) => {
    if (request.url === "/health") {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ status: "ok", model: option("--served-model-name") ?? "fake", device: "cpu", dtype: "float32", world_size: 1 }));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: { message: `no route ${request.url}`, type: "not_found_error", param: null } }));
  });
  server.listen(Number(option("--port")), option("--host"), () => process.stdout.write("fake worker ready\n"));
} else {
  setInterval(() => undefined, 60_000);
}
