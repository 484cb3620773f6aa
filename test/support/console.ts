// What the console's suites share: a JSON call of /v1/console with an optional console bearer token and source
// address, the exact developer envelope an error must answer with, and the link of the newest mail to someone.
import * as assert from "uvu/assert";
import { messageFor, type ErrorCode } from "../../src/errors/index.js";
import { answerOf, type Answer } from "./sandbox.js";
import type { TestApp } from "./test-app.js";

/**
 * `method path` on the front at `base`, with a JSON body when given and the console access token when given. With
 * `address`, the call comes from that source address (X-Forwarded-For: the test apps trust their own 127.0.0.1 as a proxy, TRUST_PROXY=127.0.0.1).
 */
export async function consoleCall(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
  address?: string,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers["authorization"] = `Bearer ${token}`;
  if (address) headers["x-forwarded-for"] = address;
  const response = await fetch(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answerOf(response);
}

/** The developer envelope of `code`: its English message with `params` filled in, the details and params as sent. */
export const developerError = (
  code: ErrorCode,
  params: Record<string, string | number> = {},
  details: unknown = [],
) => ({
  error: {
    code,
    message: messageFor(code, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)]))),
    details,
    params,
  },
});

/** Asserts the exact status and developer envelope of an error answer. */
export function expectError(
  answer: Answer,
  status: number,
  code: ErrorCode,
  params: Record<string, string | number> = {},
  details: unknown = [],
) {
  assert.is(answer.status, status, `${code}: ${JSON.stringify(answer.body)}`);
  assert.equal(answer.body, developerError(code, params, details));
}

/** One mail the log transport wrote: its recipient, subject, text and link. */
export interface LoggedMail {
  to: string;
  subject: string;
  text: string;
  link: string;
}

/** Every mail to `email` the log transport wrote, oldest first, once the outbox has nothing left to send. */
export async function mailsTo(test: TestApp, email: string): Promise<LoggedMail[]> {
  await test.app.mail.idle();
  return test.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((entry) => entry["msg"] === "console mail" && entry["to"] === email)
    .map((entry) => ({
      to: String(entry["to"]),
      subject: String(entry["subject"]),
      text: String(entry["text"]),
      link: String(entry["link"]),
    }));
}

/**
 * The link of the newest mail to `email` the log transport wrote, once the outbox has nothing left to send (mail
 * leaves after the answer).
 */
export async function mailedLink(test: TestApp, email: string): Promise<string> {
  const last = (await mailsTo(test, email)).at(-1);
  if (!last) throw new Error(`no mail to ${email}`);
  return last.link;
}

/** The token a mailed link carries. */
export const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;
