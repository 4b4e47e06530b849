#!/usr/bin/env node
// Entry point of the `trace` command: runs the compiled CLI.
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv);
