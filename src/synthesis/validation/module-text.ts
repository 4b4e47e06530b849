/**
 * Showing text a capability module produced (thrown messages, requests, tool outputs) without letting it act on the
 * terminal or pass for the host's own lines: control characters are written as JSON-style escapes, so module text
 * stays on one line (it cannot start a forged `PASS …` line) and carries no escape sequence; and it is quoted and
 * marked as the module's.
 */
import { SandboxError } from "../sandbox/sandbox-error.js";

/** C0 controls, DEL, C1 controls (e.g. U+009B, a one-character CSI), line and paragraph separators, bidi overrides and isolates. */
function isUnsafe(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

const SHORT_ESCAPES: Readonly<Record<number, string>> = { 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t" };

/** The text with every unsafe character written as a JSON-style escape (`\n`, `\u001b`); JSON text stays valid JSON. */
export function escapeControlCharacters(text: string): string {
  let escaped = "";
  let from = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (!isUnsafe(code)) continue;
    escaped += text.slice(from, index) + (SHORT_ESCAPES[code] ?? `\\u${code.toString(16).padStart(4, "0")}`);
    from = index + 1;
  }
  return from === 0 ? text : escaped + text.slice(from);
}

/** Module text as a quoted, escaped JSON string (`"Hi\n\u001b[2J"`), cut to `maximumLength` characters when given. */
export function quoteModuleText(text: string, maximumLength?: number): string {
  const cut = maximumLength !== undefined && text.length > maximumLength ? `${text.slice(0, maximumLength)}… (${text.length - maximumLength} more characters)` : text;
  return escapeControlCharacters(JSON.stringify(cut));
}

/** Module text marked as the module's: `module says: "…"` (quoted, escaped, at most 400 characters). */
export function moduleSays(text: string): string {
  return `module says: ${quoteModuleText(text, 400)}`;
}

/** Sandbox failures whose explanation is the host's own words (the rest carry what the module threw or returned). */
const HOST_WORDED_KINDS: ReadonlySet<string> = new Set(["timeout", "memory", "crash", "import"]);

/** Errors the host raises about a module, worded by the host (their message is shown escaped, not quoted). */
const HOST_ERROR_NAMES: ReadonlySet<string> = new Set(["MalformedVerdictError", "GatesStoppedError"]);

/**
 * One line describing an error raised while calling a module: a sandbox failure as `function: kind: module says: "…"`
 * (or the host's words for timeouts, memory, crashes and refused imports), anything else the module threw as
 * `module says: "…"`.
 */
export function describeModuleError(error: unknown): string {
  if (SandboxError.isInstance(error)) {
    if (HOST_WORDED_KINDS.has(error.kind)) return escapeControlCharacters(error.message);
    const prefix = `${error.functionName}: ${error.kind}: `;
    const rest = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    return `${escapeControlCharacters(prefix)}${moduleSays(rest)}`;
  }
  if (error instanceof Error && HOST_ERROR_NAMES.has(error.name)) return escapeControlCharacters(error.message);
  return moduleSays(error instanceof Error ? error.message : String(error));
}
