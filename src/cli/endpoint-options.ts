/**
 * The command-line options of an OpenAI-compatible endpoint, spelled the same in every command: `--<role>-url`,
 * `--<role>-model` and `--<role>-api-key` (e.g. `--analyst-url`), and the checked endpoint they give.
 */
import type { Command } from "commander";
import { UsageError } from "./usage-error.js";

/** An endpoint from the command line. */
export interface EndpointOption {
  url: string;
  model: string;
  apiKey?: string;
}

/** An http(s) URL given as `name`, or a UsageError naming the option and the value. */
export function httpUrlOption(name: string, text: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) throw new UsageError(`${name} must be an http(s) URL, got ${JSON.stringify(text)}`);
  return url;
}

const camel = (role: string) => role.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * Adds `--<role>-url`, `--<role>-model` and `--<role>-api-key` for `what` (e.g. "the analyst"). `required`: the URL
 * and model must be given; `fallback`: what an unset one takes (help text, e.g. "the agent's").
 */
export function addEndpointOptions(command: Command, role: string, what: string, options: { required?: boolean; fallback?: string; purpose?: string } = {}): Command {
  const suffix = options.fallback === undefined ? "" : ` (default: ${options.fallback})`;
  const purpose = options.purpose === undefined ? "" : ` ${options.purpose}`;
  const add = (flag: string, help: string) => (options.required === true && !flag.includes("api-key") ? command.requiredOption(flag, help) : command.option(flag, help));
  add(`--${role}-url <url>`, `OpenAI-compatible base URL of ${what}${purpose}, e.g. http://localhost:8000/v1${suffix}`);
  add(`--${role}-model <model>`, `model name of ${what}${suffix}`);
  add(`--${role}-api-key <key>`, `API key of ${what}${options.fallback === undefined ? "" : ` (default: ${options.fallback} when --${role}-url is not given)`}`);
  return command;
}

/**
 * The endpoint that `--<role>-url/-model/-api-key` give (read from Commander's option values), its URL checked;
 * undefined when neither URL nor model is given and there is no fallback. With a fallback, an unset URL or model
 * takes the fallback's, and the fallback's key applies when the URL is the fallback's.
 */
export function endpointOption(values: object, role: string, fallback?: EndpointOption): EndpointOption | undefined {
  const read = (field: string): string | undefined => {
    const value = (values as Record<string, unknown>)[`${camel(role)}${field}`];
    return typeof value === "string" ? value : undefined;
  };
  const [url, model, apiKey] = [read("Url"), read("Model"), read("ApiKey")];
  if (fallback === undefined) {
    if (url === undefined && model === undefined) return undefined;
    if (url === undefined) throw new UsageError(`--${role}-model needs --${role}-url`);
    if (model === undefined) throw new UsageError(`--${role}-url needs --${role}-model`);
  }
  const resolvedUrl = url ?? fallback!.url;
  httpUrlOption(`--${role}-url`, resolvedUrl);
  const key = apiKey ?? (url === undefined ? fallback?.apiKey : undefined);
  return { url: resolvedUrl, model: model ?? fallback!.model, ...(key ? { apiKey: key } : {}) };
}
