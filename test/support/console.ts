// What the console's suites share: a JSON call of /v1/console with an optional console bearer token, and the exact
// developer envelope an error must answer with.
import * as assert from "uvu/assert";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
import { answerOf, type Answer } from "./sandbox.js";

/** `method path` on the front at `base`, with a JSON body when given and the console access token when given. */
export async function consoleCall(base: string, method: string, path: string, body?: unknown, token?: string): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers["authorization"] = `Bearer ${token}`;
  const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return answerOf(response);
}

/** The developer envelope of `code`: its English message with `params` filled in, the details and params as sent. */
export const developerError = (code: ErrorCode, params: Record<string, string | number> = {}, details: unknown = []) => ({
  error: { code, message: messageFor(code, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))), details, params },
});

/** Asserts the exact status and developer envelope of an error answer. */
export function expectError(answer: Answer, status: number, code: ErrorCode, params: Record<string, string | number> = {}, details: unknown = []) {
  assert.is(answer.status, status, `${code}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body, developerError(code, params, details));
}
