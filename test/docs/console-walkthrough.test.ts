// docs/console-walkthrough.md, followed to the letter: every ```http block of the page is sent, in order, to a
// started app (the page's 127.0.0.1:8080 and :8090 replaced by the app's front and internal port), with the values
// the page says to keep carried forward, and each answer must have the status the page's
// <!-- walkthrough: expect N; keep a.b as name --> comment gives. The bodies exist only in the page.
import { readFile } from "node:fs/promises";
import { suite } from "../support/suite.js";
import * as assert from "uvu/assert";
import { createManualClock } from "../../src/runtime/clock.js";
import { startTestApp, type TestApp } from "../support/test-app.js";
import { mailedLink } from "../support/console.js";

const Walkthrough = suite("docs/console-walkthrough");
const page = new URL("../../docs/console-walkthrough.md", import.meta.url);
const clock = createManualClock(Date.now());
let test: TestApp;

Walkthrough.before(async () => {
  test = await startTestApp({ clock, redis: false });
});
Walkthrough.after(async () => {
  await test.stop();
});

type Step =
  | {
      kind: "http";
      method: string;
      url: string;
      headers: Record<string, string>;
      body: string;
      expect: number;
      keep: Keep[];
    }
  | { kind: "mail"; to: string; keep: Keep[] };
interface Keep {
  path: string;
  name: string;
}

/** The page's steps: each ```http block with the walkthrough comment after it, and the standalone mail steps. */
function stepsOf(markdown: string): Step[] {
  const steps: Step[] = [];
  const pattern = /```http\n([\s\S]*?)\n```\n<!-- walkthrough: (.*?) -->|<!-- walkthrough: (mail .*?) -->/g;
  for (const match of markdown.matchAll(pattern)) {
    if (match[3]) {
      const [mail, ...rest] = match[3].split(";").map((part) => part.trim());
      steps.push({ kind: "mail", to: mail!.slice("mail ".length), keep: keepsOf(rest) });
      continue;
    }
    const [head, ...bodyLines] = match[1]!.split("\n\n");
    const [requestLine, ...headerLines] = head!.split("\n");
    const [method, url] = requestLine!.split(" ");
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
    );
    const [expect, ...rest] = match[2]!.split(";").map((part) => part.trim());
    const status = /^expect (\d{3})$/.exec(expect!);
    if (!status) throw new Error(`a walkthrough comment without "expect N": ${match[2]}`);
    steps.push({
      kind: "http",
      method: method!,
      url: url!,
      headers,
      body: bodyLines.join("\n\n"),
      expect: Number(status[1]),
      keep: keepsOf(rest),
    });
  }
  return steps;
}

function keepsOf(parts: string[]): Keep[] {
  return parts.flatMap((part) =>
    part
      .replace(/^keep /, "")
      .split(",")
      .map((one) => {
        const [path, name] = one.trim().split(" as ");
        if (!path || !name) throw new Error(`a keep without "path as name": ${part}`);
        return { path, name };
      }),
  );
}

const valueAt = (body: unknown, path: string): unknown =>
  path.split(".").reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], body);

Walkthrough(
  "the page's steps, from a staff agreement and a sign-up to a sandbox token, a first GET /v1/items and an online order followed in the feed",
  async () => {
    const steps = stepsOf(await readFile(page, "utf8"));
    assert.is(steps.length, 22, "every step of the page is a request or the mail");
    const pathOf = (url: string) => url.replace(/^http:\/\/127\.0\.0\.1:\d+/, "").replace(/\?.*$/, "");
    assert.equal(
      steps.map((step) => (step.kind === "http" ? `${step.method} ${pathOf(step.url)}` : "mail")),
      [
        "POST /partnerapi.v1.ConsoleService/PublishAgreementVersion",
        "POST /v1/console/account/sign-up",
        "mail",
        "POST /v1/console/account/verify-email",
        "POST /v1/console/session/sign-in",
        "POST /v1/console/program/applications",
        "POST /partnerapi.v1.ConsoleService/ListProgramApplications",
        "POST /partnerapi.v1.ConsoleService/DecideProgramApplication",
        "GET /v1/console/program/agreement",
        "POST /v1/console/program/agreement/signatures",
        "POST /v1/console/organizations",
        "POST /v1/console/organizations/{{organizationId}}/apps",
        "POST /v1/console/organizations/{{organizationId}}/sandbox-merchants",
        "POST /v1/token",
        "GET /v1/items",
        "POST /v1/console/organizations/{{organizationId}}/apps",
        "POST /v1/token",
        "GET /v1/stores",
        "GET /v1/items",
        "POST /v1/online-orders",
        "POST /v1/sandbox/online-orders/{{orderId}}/status",
        "GET /v1/online-orders",
      ],
    );
    const kept = new Map<string, string>([["staffCredential", test.internal.staff]]);
    const fill = (text: string) =>
      text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
        const value = kept.get(name);
        if (value === undefined) throw new Error(`{{${name}}} is used before a step keeps it`);
        return value;
      });
    const grpc = `http://127.0.0.1:${test.app.grpc.port}`;
    const answers: Array<{ step: string; status: number; body: unknown }> = [];
    for (const step of steps) {
      if (step.kind === "mail") {
        const link = await mailedLink(test, step.to);
        for (const keep of step.keep) {
          const value = new URL(link).searchParams.get(keep.path);
          assert.ok(value, `no ${keep.path} in the mailed link`);
          kept.set(keep.name, value);
        }
        continue;
      }
      const url = fill(step.url).replace("http://127.0.0.1:8080", test.base).replace("http://127.0.0.1:8090", grpc);
      const response = await fetch(url, {
        method: step.method,
        headers: Object.fromEntries(Object.entries(step.headers).map(([name, value]) => [name, fill(value)])),
        body: step.method === "GET" ? undefined : fill(step.body),
      });
      const text = await response.text();
      const body = text ? (JSON.parse(text) as unknown) : undefined;
      answers.push({ step: `${step.method} ${new URL(url).pathname}`, status: response.status, body });
      assert.is(response.status, step.expect, `${step.method} ${url}: ${text}`);
      for (const keep of step.keep) {
        const value = valueAt(body, keep.path);
        assert.ok(value !== undefined && value !== null && value !== "", `${keep.path} in ${text}`);
        kept.set(keep.name, String(value));
      }
    }
    // What steps 14 and 15 promise: a sandbox token of the FULL app for the merchant, and its items.
    const token = answers.at(-9)!.body as Record<string, unknown>;
    assert.is(token["token_type"], "Bearer");
    assert.is(token["expires_in"], 900);
    const items = (answers.at(-8)!.body as { items: Array<Record<string, unknown>> }).items;
    assert.is(items.length, 5);
    const claims = JSON.parse(
      Buffer.from(String(token["access_token"]).split(".")[1]!, "base64url").toString(),
    ) as Record<string, unknown>;
    assert.is(claims["companyId"], Number(kept.get("companyId")));
    assert.is(claims["env"], "SANDBOX");
    assert.is(claims["product"], "FULL");
    // And the online order: placed PENDING, accepted by the helper, in the feed as it is now, with a cursor to keep.
    const placed = (answers.at(-3)!.body as { order: Record<string, unknown> }).order;
    assert.equal([placed["status"], placed["externalReference"]], ["PENDING", "walkthrough-1"]);
    const feed = answers.at(-1)!.body as { orders: Array<Record<string, unknown>>; nextCursor: string };
    assert.equal(
      feed.orders.map((order) => [order["id"], order["status"]]),
      [[placed["id"], "ACCEPTED"]],
    );
    assert.type(feed.nextCursor, "string");
  },
);

Walkthrough.run();
