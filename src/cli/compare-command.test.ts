import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { runCompareCommand } from "./compare-command.js";
import { UsageError } from "./usage-error.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-compare-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const config = {
  name: "cli",
  model: {},
  target: { kind: "mini" },
  environments: { map: {} },
};

test("a directory without config.json is not a run; unknown methods and bad seeds are named", async () => {
  await assert.rejects(runCompareCommand(path.join(scratch, "nothing"), {}, () => {}), (error: unknown) => error instanceof UsageError && /not a run directory/.test(error.message));
  const run = path.join(scratch, "run");
  mkdirSync(run, { recursive: true });
  writeFileSync(path.join(run, "config.json"), JSON.stringify(config));
  await assert.rejects(runCompareCommand(run, { methods: "trace,bogus" }, () => {}), (error: unknown) => error instanceof UsageError && /unknown method "bogus"/.test(error.message));
  await assert.rejects(runCompareCommand(run, { methods: "" }, () => {}), (error: unknown) => error instanceof UsageError && /at least one method/.test(error.message));
  await assert.rejects(runCompareCommand(run, { seeds: "0,x" }, () => {}), (error: unknown) => error instanceof UsageError && /--seeds/.test(error.message));
});
