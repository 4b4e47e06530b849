// `npm run test:unit`: the TypeScript tests that start no worker, no `trace` process and no tiny checkpoint (seconds
// to a couple of minutes); `npm test` runs everything. A test file is a unit test unless its source mentions one of
// the heavy entry points below, so a new test lands in the right tier by what it does.
import { readFileSync, readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";

// `ticketing-run-fixture` runs `trace run`; `puppeteer-core` drives a real browser (the dashboard's browser tests).
const heavy = /startWorker\(|createTinyCheckpoint\(|runningWorker\(|bin\/trace\.js|"bin", "trace\.js"|trace_worker|runPipeline\(|createPipelineContext\(|runCompare\(|ticketing-run-fixture|puppeteer-core/;
const files = readdirSync("src", { recursive: true })
  .map(String)
  .filter((file) => file.endsWith(".test.ts"))
  .filter((file) => !heavy.test(readFileSync(path.join("src", file), "utf8")))
  .map((file) => path.join("dist", file.replace(/\.ts$/, ".js")))
  .sort();
console.log(`unit tier: ${files.length} test files`);
const result = spawnSync(process.execPath, ["--test", ...process.argv.slice(2), ...files], { stdio: "inherit" });
process.exit(result.status ?? 1);
