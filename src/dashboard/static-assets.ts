/**
 * The files the page loads, all served by the dashboard itself so it works offline: the browser builds of vega,
 * vega-lite and vega-embed from their installed packages, and the page's compiled script.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The directory of an installed package: the nearest ancestor of its entry point whose package.json names it. */
function packageDirectory(name: string): string {
  let directory = path.dirname(fileURLToPath(import.meta.resolve(name)));
  while (directory !== path.dirname(directory)) {
    const manifest = path.join(directory, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === name) return directory;
    directory = path.dirname(directory);
  }
  throw new Error(`cannot find the directory of the installed package ${name}`);
}

/** URL path → file, for the scripts of the page. */
export function staticAssetFiles(): Map<string, string> {
  return new Map([
    ["/assets/vega.min.js", path.join(packageDirectory("vega"), "build", "vega.min.js")],
    ["/assets/vega-lite.min.js", path.join(packageDirectory("vega-lite"), "build", "vega-lite.min.js")],
    ["/assets/vega-embed.min.js", path.join(packageDirectory("vega-embed"), "build", "vega-embed.min.js")],
    ["/assets/dashboard-client.js", fileURLToPath(new URL("./client/dashboard-client.js", import.meta.url))],
  ]);
}
