import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { PipelineConfigError } from "../pipeline/pipeline-config-error.js";
import { RunNotServableError } from "../serving/run-not-servable-error.js";
import { checkServableRun, serveRun } from "./serve-command.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-serve-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const run = promisify(execFile);

function refusal(runDirectory: string, missing: string, reason: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(RunNotServableError.isInstance(error), String(error));
    assert.equal(error.runDirectory, runDirectory);
    assert.equal(error.missing, missing);
    assert.match(error.message, reason);
    return true;
  };
}

/** A run directory holding the given files (path → JSON value). */
function runDirectory(name: string, files: Record<string, unknown>): string {
  const directory = path.join(scratch, name);
  mkdirSync(directory, { recursive: true });
  for (const [file, value] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(directory, file)), { recursive: true });
    writeFileSync(path.join(directory, file), JSON.stringify(value));
  }
  return directory;
}

const trained = {
  "environments/index.json": { environments: [{ capability: "order_lookup", description: "d", module: "m", source: "hand-written", validation: [] }], skipped: [] },
  "adapters/order_lookup/training.json": { capability: "order_lookup", adapterPath: "/nowhere", adapter: "order_lookup", iterations: 1, firstRewardMean: 0, lastRewardMean: 0, finishedAt: "" },
};

test("trace serve on a missing run directory: one line naming it, exit code 1", async () => {
  const missing = path.join(scratch, "no-such-run");
  await assert.rejects(run(process.execPath, [bin, "serve", missing, "--port", "0"]), (error: unknown) => {
    const { code, stderr } = error as { code: number; stderr: string };
    assert.equal(code, 1);
    assert.equal(stderr, `trace: ${missing}: no such run directory\n`);
    return true;
  });
  await assert.rejects(run(process.execPath, [bin, "serve", missing, "--port", "http"]), /--port must be an integer ≥ 0, got "http"/);
});

test("a run without config.json, without eval/routing.json or without trained adapters is refused, naming what is missing", () => {
  const file = path.join(scratch, "a-file");
  writeFileSync(file, "");
  assert.throws(() => checkServableRun(file), refusal(file, file, /no such run directory/));
  const empty = runDirectory("empty", {});
  assert.throws(() => checkServableRun(empty), refusal(empty, path.join(empty, "config.json"), /no config\.json/));
  const unrouted = runDirectory("unrouted", { "config.json": {}, ...trained });
  assert.throws(() => checkServableRun(unrouted), refusal(unrouted, path.join(unrouted, "eval", "routing.json"), /no eval\/routing\.json: the run has not finished its route stage/));
  const untrained = runDirectory("untrained", { "config.json": {}, "eval/routing.json": { options: [], decisions: [] } });
  assert.throws(() => checkServableRun(untrained), refusal(untrained, path.join(untrained, "adapters"), /no trained adapters/));
  const servable = runDirectory("servable", { "config.json": {}, "eval/routing.json": { options: [], decisions: [] }, ...trained });
  checkServableRun(servable);
});

test("a servable-looking run whose config.json is not a configuration fails before any worker starts", async () => {
  const broken = runDirectory("broken-config", { "config.json": { name: 3 }, "eval/routing.json": { options: [], decisions: [] }, ...trained });
  const logged: string[] = [];
  await assert.rejects(serveRun(broken, { port: 0, host: "127.0.0.1", log: (line) => logged.push(line) }), (error: unknown) => error instanceof PipelineConfigError && error.file === path.join(broken, "config.json"));
  assert.deepEqual(logged, []);
});
