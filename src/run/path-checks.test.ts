import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { checkDirectoryPath, checkExistingDirectory, checkOutputFilePath, UnusablePathError } from "./path-checks.js";
import { openRunDirectory } from "./run-directory.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-path-checks-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const file = path.join(scratch, "file");
writeFileSync(file, "");
const directory = path.join(scratch, "directory");
mkdirSync(directory);

function unusable(what: string, offending: string, reason: RegExp): (error: unknown) => boolean {
  return (error) => error instanceof UnusablePathError && error.what === what && error.path === offending && reason.test(error.reason) && !error.message.includes("\n");
}

test("checkDirectoryPath: an existing directory or a creatable path passes; a file, or a path under one, does not", () => {
  checkDirectoryPath(directory, "run directory");
  checkDirectoryPath(path.join(scratch, "new", "deeper"), "run directory");
  assert.throws(() => checkDirectoryPath(file, "run directory"), unusable("run directory", file, /is a file, not a directory/));
  const under = path.join(file, "sub", "run");
  assert.throws(() => checkDirectoryPath(under, "--out"), unusable("--out", under, new RegExp(`${file.replaceAll("/", "\\/")} is a file`)));
});

test("checkOutputFilePath: refuses a directory, a path under a file, and a missing directory unless it may be created", () => {
  checkOutputFilePath(path.join(directory, "out.json"), "--out");
  checkOutputFilePath(file, "--out");
  assert.throws(() => checkOutputFilePath(directory, "--out"), unusable("--out", directory, /is a directory/));
  assert.throws(() => checkOutputFilePath(path.join(file, "out.json"), "--out"), unusable("--out", path.join(file, "out.json"), /is a file, not a directory/));
  const inMissing = path.join(scratch, "missing", "out.json");
  assert.throws(() => checkOutputFilePath(inMissing, "--out"), unusable("--out", inMissing, /does not exist/));
  checkOutputFilePath(inMissing, "--out", { createDirectory: true });
});

test("checkExistingDirectory: a directory passes; a file or nothing does not", () => {
  checkExistingDirectory(directory, "--runs");
  assert.throws(() => checkExistingDirectory(file, "--runs"), unusable("--runs", file, /is a file/));
  assert.throws(() => checkExistingDirectory(path.join(scratch, "none"), "--runs"), unusable("--runs", path.join(scratch, "none"), /no such directory/));
});

test("RunDirectory.create makes the directory, or refuses a file without touching it", () => {
  const root = path.join(scratch, "runs", "one");
  openRunDirectory(root).create();
  checkExistingDirectory(root, "run directory");
  assert.throws(() => openRunDirectory(file).create(), unusable("run directory", file, /is a file/));
});
