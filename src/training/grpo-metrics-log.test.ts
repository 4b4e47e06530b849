import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { episodesThrough } from "./grpo-metrics-log.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-grpo-metrics-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("episodes through an iteration sum metrics.jsonl's episodes (every sampling round); a missing iteration gives null", () => {
  const file = path.join(scratch, "metrics.jsonl");
  writeFileSync(file, [{ iteration: 1, episodes: 16 }, { iteration: 2, episodes: 48 }, { iteration: 3, episodes: 16 }].map((line) => JSON.stringify(line) + "\n").join(""));
  assert.equal(episodesThrough(file, 0), 0);
  assert.equal(episodesThrough(file, 2), 64);
  assert.equal(episodesThrough(file, 3), 80);
  assert.equal(episodesThrough(file, 4), null);
  assert.equal(episodesThrough(path.join(scratch, "none.jsonl"), 0), 0);
  assert.equal(episodesThrough(path.join(scratch, "none.jsonl"), 1), null);
});
