/** The sampler's tokenizer over HTTP: vLLM's (and the worker's) `POST /tokenize` → `{tokens}`. */
import { z } from "zod";
import { TokenizeRequestError } from "./tokenize-request-error.js";

/** Token ids of a text, without special tokens. */
export type Tokenize = (text: string) => Promise<number[]>;

/** Where and how to reach `/tokenize`: an OpenAI-compatible base URL (`…/v1`). */
export interface TokenizeEndpoint {
  baseUrl: string;
  apiKey?: string;
  fetch?: typeof fetch;
}

const tokenizeResponseSchema = z.object({ tokens: z.array(z.number().int()) });

/** Posts a `/tokenize` body (`{prompt}` or `{messages, tools}`, as vLLM and the worker take them) and returns the ids. */
export function createTokenizeRequest(options: TokenizeEndpoint): (body: Record<string, unknown>) => Promise<number[]> {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/tokenize`;
  const send = options.fetch ?? fetch;
  return async (requestBody) => {
    let response: Response;
    try {
      response = await send(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }) },
        body: JSON.stringify(requestBody),
      });
    } catch (error) {
      throw new TokenizeRequestError(url, "no response", { cause: error });
    }
    const body = await response.text();
    if (!response.ok) throw new TokenizeRequestError(url, `HTTP ${response.status}: ${body.slice(0, 300)}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch (error) {
      throw new TokenizeRequestError(url, "the answer is not JSON", { cause: error });
    }
    const result = tokenizeResponseSchema.safeParse(parsed);
    if (!result.success) throw new TokenizeRequestError(url, `unexpected answer: ${result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
    return result.data.tokens;
  };
}

/** A `Tokenize` against an OpenAI-compatible base URL (`…/v1`): posts to `…/v1/tokenize`, which vLLM and the worker both serve. */
export function createTokenizeClient(options: TokenizeEndpoint): Tokenize {
  const request = createTokenizeRequest(options);
  return (text) => request({ prompt: text, add_special_tokens: false });
}
