import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import type { MergeAdaptersOptions } from "../worker/trainer-types.js";
import { parsePipelineConfig } from "./pipeline-config.js";
import type { PipelineContext } from "./pipeline-context.js";
import { MergedAdapterMismatchError, mergeAdaptersInto } from "./serve-adapter.js";
import { scratchDirectory } from "../testing/scratch-directory.js";

/** A context whose worker records the merge requests and "saves" an adapter by writing its config file. */
function recordingContext(): { context: PipelineContext; merges: MergeAdaptersOptions[] } {
  const config = parsePipelineConfig({ name: "x", model: {}, target: { dataDirectory: "data", domains: ["airline"] }, environments: { map: {} } }, "c.json");
  const merges: MergeAdaptersOptions[] = [];
  const trainer = {
    listModels: () => Promise.resolve([{ id: "a" }, { id: "b" }, { id: "c" }]),
    listAdapters: () => Promise.resolve([]),
    mergeAdapters: (merge: MergeAdaptersOptions) => {
      merges.push(merge);
      return Promise.resolve({ name: merge.name, method: "ties", rank: 3, modules: 1, targetModules: [], maxRelativeError: 0, meanRelativeError: 0 });
    },
    saveAdapter: ({ path: directory }: { path: string }) => {
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, "adapter_config.json"), "{}");
      return Promise.resolve({});
    },
  };
  const context = { config, loraSampler: () => undefined, worker: () => Promise.resolve({ trainerClient: () => trainer }) } as unknown as PipelineContext;
  return { context, merges };
}

const sources = ["a", "b", "c"].map((model) => ({ model, adapterPath: `/adapters/${model}` }));

test("mergeAdaptersInto: TIES with the worker's 1/n weights and rank unless they are given; a saved merge is kept", async () => {
  const directory = scratchDirectory("merge-");
  const plain = recordingContext();
  await mergeAdaptersInto(plain.context, "m", sources, path.join(directory, "plain"));
  assert.deepEqual(plain.merges, [{ name: "m", sources: ["a", "b", "c"], method: "ties" }]);
  const full = recordingContext();
  await mergeAdaptersInto(full.context, "m", sources, path.join(directory, "full"), { weight: 1 });
  assert.deepEqual(full.merges, [{ name: "m", sources: ["a", "b", "c"], method: "ties", weights: [1, 1, 1] }]);
  // A resumed run finds the merge it saved and asks for nothing.
  assert.equal(await mergeAdaptersInto(full.context, "m", sources, path.join(directory, "full"), { weight: 1 }), null);
  assert.equal(full.merges.length, 1);
  const wide = recordingContext();
  await mergeAdaptersInto(wide.context, "m", sources, path.join(directory, "wide"), { weight: 1.5, rank: 256 });
  assert.deepEqual(wide.merges, [{ name: "m", sources: ["a", "b", "c"], method: "ties", weights: [1.5, 1.5, 1.5], rank: 256 }]);
  const linear = recordingContext();
  await mergeAdaptersInto(linear.context, "m", sources, path.join(directory, "linear"), { method: "linear", weight: 1 });
  assert.deepEqual(linear.merges, [{ name: "m", sources: ["a", "b", "c"], method: "linear", weights: [1, 1, 1] }]);
  const dense = recordingContext();
  await mergeAdaptersInto(dense.context, "m", sources, path.join(directory, "dense"), { weight: 1, density: 1 });
  assert.deepEqual(dense.merges, [{ name: "m", sources: ["a", "b", "c"], method: "ties", weights: [1, 1, 1], density: 1 }]);
});

test("mergeAdaptersInto: a saved merge of another weight, rank or other sources is refused, naming what differs", async () => {
  const directory = path.join(scratchDirectory("merge-"), "merged");
  const { context, merges } = recordingContext();
  await mergeAdaptersInto(context, "m", sources, directory);
  assert.deepEqual(JSON.parse(readFileSync(path.join(directory, "merge.json"), "utf8")), { sources: ["a", "b", "c"], weight: null, rank: null, method: "ties", density: null });
  assert.equal(await mergeAdaptersInto(context, "m", sources, directory), null, "the same merge is reused");
  await assert.rejects(mergeAdaptersInto(context, "m", sources, directory, { weight: 1 }), (error: unknown) => error instanceof MergedAdapterMismatchError && /holds a merge of other settings \(weight 1\/n → 1\); delete that directory/.test(error.message) && error.adapterPath === directory);
  await assert.rejects(mergeAdaptersInto(context, "m", sources, directory, { rank: 256 }), (error: unknown) => error instanceof MergedAdapterMismatchError && /\(rank the sources' sum → 256\)/.test(error.message));
  await assert.rejects(mergeAdaptersInto(context, "m", sources, directory, { method: "linear" }), (error: unknown) => error instanceof MergedAdapterMismatchError && /\(method ties → linear\)/.test(error.message));
  await assert.rejects(mergeAdaptersInto(context, "m", sources, directory, { density: 0.5 }), (error: unknown) => error instanceof MergedAdapterMismatchError && /\(density the worker's → 0\.5\)/.test(error.message));
  // A record saved before the rank, method and density were settings reads as the sources' sum, TIES and the worker's density.
  writeFileSync(path.join(directory, "merge.json"), JSON.stringify({ sources: ["a", "b", "c"], weight: null }));
  assert.equal(await mergeAdaptersInto(context, "m", sources, directory), null);
  await assert.rejects(mergeAdaptersInto(context, "m", sources.slice(0, 2), directory), (error: unknown) => error instanceof MergedAdapterMismatchError && /sources a, b, c → a, b\)/.test(error.message));
  assert.equal(merges.length, 1, "nothing merged again");
  // A merge saved before merge.json existed is reused as it is.
  rmSync(path.join(directory, "merge.json"));
  assert.equal(await mergeAdaptersInto(context, "m", sources, directory, { weight: 1 }), null);
});
