// Writes that "may or may not have committed" (issue 37), shared by the PostgreSQL failover test (test/ha/) and
// bench:chaos: a refresh rotation, a code exchange, a consent decision and an online-order placement, each prepared
// as a ticket before a fault (a code, a refresh token, a consent form on a signed-in session, an order's external
// reference) so the call under the fault is the single write itself. After the fault every ticket's answer is
// checked against what the database holds: a 2xx (a 302 with a code for a decision) only where the write committed
// and is visible after, anything else 503 server.database_unavailable with Retry-After.
import { createHash, randomBytes } from "node:crypto";
import { cookieHeader, hiddenValue, setCookies } from "./test-app.js";

export type WriteKind = "refresh" | "exchange" | "consent" | "order";
export const writeKinds: readonly WriteKind[] = ["refresh", "exchange", "consent", "order"];

/** Where the calls go: the partner API and the consent site (the balancer's, or one app's). */
export interface WriteTarget {
  api: string;
  auth: string;
}

/** A FULL app's sandbox client, its redirect URI and the merchant owner who consents. */
export interface ConsentingApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  owner: { email: string; password: string };
}

/** An ONLINE_ORDER app's token for a merchant, its store and an item of it. */
export interface OrderingShop {
  token: string;
  storeId: number;
  itemId: number;
}

export interface Ticket {
  kind: WriteKind;
  /** refresh: the refresh token; exchange: the code; consent: the form; order: the external reference. */
  value: string;
  form?: URLSearchParams;
}

/** What a ticket's call answered, and when (performance.now()). */
export interface WriteAnswer {
  ticket: Ticket;
  status: number | "no answer";
  /** The error code (JSON `code`, or the consent site's error page), when not a success. */
  code: string | undefined;
  retryAfter: string | null;
  /** refresh/exchange: the new refresh token; consent: the code in Location; order: the order id. */
  result: string | undefined;
  body: string;
  startedMs: number;
  endedMs: number;
}

const verifier = randomBytes(32).toString("base64url");
const challenge = createHash("sha256").update(verifier).digest("base64url");

/** A consent-site session of the owner (cookies), signed in once for all of a kind's tickets. */
async function signedIn(target: WriteTarget, app: ConsentingApp): Promise<Map<string, string>> {
  const page = await fetch(authorizeUrl(target, app, "sign-in"));
  const cookies = setCookies(page);
  const html = await page.text();
  const answer = await fetch(`${target.auth}/oauth/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookieHeader(cookies),
      origin: target.auth,
    },
    body: new URLSearchParams({
      csrf: hiddenValue(html, "csrf"),
      return_to: hiddenValue(html, "return_to"),
      email: app.owner.email,
      password: app.owner.password,
    }),
  });
  if (answer.status !== 303) throw new Error(`sign-in answered ${answer.status}: ${await answer.text()}`);
  for (const [name, value] of setCookies(answer)) cookies.set(name, value);
  return cookies;
}

function authorizeUrl(target: WriteTarget, app: ConsentingApp, state: string): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
  });
  return `${target.auth}/oauth/authorize?${query}`;
}

/** The consent page's form, ready to post as an "allow" decision. */
async function consentForm(target: WriteTarget, app: ConsentingApp, cookies: Map<string, string>, state: string) {
  const page = await fetch(authorizeUrl(target, app, state), { headers: { cookie: cookieHeader(cookies) } });
  const html = await page.text();
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${html}`);
  const form = new URLSearchParams();
  for (const name of ["csrf", "response_type", "client_id", "redirect_uri", "state", "scope"]) {
    if (html.includes(`name="${name}"`)) form.set(name, hiddenValue(html, name));
  }
  for (const [name, value] of [
    ["code_challenge", challenge],
    ["code_challenge_method", "S256"],
  ] as const) {
    if (html.includes(`name="${name}"`)) form.set(name, value);
  }
  form.set("decision", "allow");
  return form;
}

function postDecision(target: WriteTarget, cookies: Map<string, string>, form: URLSearchParams): Promise<Response> {
  return fetch(`${target.auth}/oauth/authorize/decision`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      cookie: cookieHeader(cookies),
      origin: target.auth,
    },
    body: form,
  });
}

function tokenCall(target: WriteTarget, app: ConsentingApp, fields: Record<string, string>): Promise<Response> {
  return fetch(`${target.api}/v1/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: app.clientId, client_secret: app.clientSecret, ...fields }),
  });
}

const exchangeFields = (app: ConsentingApp, code: string) => ({
  grant_type: "authorization_code",
  code,
  redirect_uri: app.redirectUri,
  code_verifier: verifier,
});

/** What one kind's calls need: the app, the shop, and the consent session the decisions post on. */
export interface Writer {
  target: WriteTarget;
  app: ConsentingApp;
  shop: OrderingShop;
  cookies: Map<string, string>;
}

export async function createWriter(target: WriteTarget, app: ConsentingApp, shop: OrderingShop): Promise<Writer> {
  return { target, app, shop, cookies: await signedIn(target, app) };
}

let serial = 0;

/** `count` tickets of `kind`, each prepared with calls that must succeed (the cluster is healthy here). */
export async function prepareTickets(writer: Writer, kind: WriteKind, count: number): Promise<Ticket[]> {
  const tickets: Ticket[] = [];
  for (let index = 0; index < count; index++) {
    const state = `t-${process.pid}-${++serial}`;
    if (kind === "order") {
      tickets.push({ kind, value: `inflight-${process.pid}-${serial}-${randomBytes(3).toString("hex")}` });
      continue;
    }
    const form = await consentForm(writer.target, writer.app, writer.cookies, state);
    if (kind === "consent") {
      tickets.push({ kind, value: state, form });
      continue;
    }
    const code = await codeOf(await postDecision(writer.target, writer.cookies, form));
    if (kind === "exchange") {
      tickets.push({ kind, value: code });
      continue;
    }
    const exchanged = await tokenCall(writer.target, writer.app, exchangeFields(writer.app, code));
    const body = (await exchanged.json()) as { refresh_token?: string };
    if (exchanged.status !== 200 || !body.refresh_token) throw new Error(`exchange: ${JSON.stringify(body)}`);
    tickets.push({ kind, value: body.refresh_token });
  }
  return tickets;
}

async function codeOf(decision: Response): Promise<string> {
  const location = decision.headers.get("location");
  const code = location ? new URL(location).searchParams.get("code") : null;
  if (decision.status !== 302 || !code)
    throw new Error(`decision answered ${decision.status}: ${await decision.text()}`);
  return code;
}

function orderCall(writer: Writer, externalReference: string): Promise<Response> {
  return fetch(`${writer.target.api}/v1/online-orders`, {
    method: "POST",
    headers: { authorization: `Bearer ${writer.shop.token}`, "content-type": "application/json" },
    body: JSON.stringify({
      storeId: writer.shop.storeId,
      lines: [{ itemId: writer.shop.itemId, quantity: 1 }],
      fulfilment: { type: "PICKUP" },
      customer: { name: "In-flight customer" },
      externalReference,
    }),
  });
}

/** The code of an error answer: the JSON body's `code`, or the consent site's error page's. */
function errorCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    if (typeof parsed.code === "string") return parsed.code;
  } catch {
    // An HTML page.
  }
  return /Error code: <code>([^<]+)<\/code>/.exec(body)?.[1];
}

/** The ticket's one write, bounded by `timeoutMs`; what came back. */
export async function spend(writer: Writer, ticket: Ticket, timeoutMs: number): Promise<WriteAnswer> {
  const startedMs = performance.now();
  const answer = (response: Response | undefined, body: string, result: string | undefined): WriteAnswer => ({
    ticket,
    status: response?.status ?? "no answer",
    code: response && response.status >= 400 ? errorCode(body) : undefined,
    retryAfter: response?.headers.get("retry-after") ?? null,
    result,
    body,
    startedMs,
    endedMs: performance.now(),
  });
  try {
    const response = await Promise.race([
      call(writer, ticket),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no answer in time")), timeoutMs)),
    ]);
    if (ticket.kind === "consent") {
      const location = response.headers.get("location");
      const code = location ? (new URL(location).searchParams.get("code") ?? undefined) : undefined;
      return answer(response, await response.text(), code);
    }
    const body = await response.text();
    if (response.status !== 200) return answer(response, body, undefined);
    const parsed = JSON.parse(body) as { refresh_token?: string; order?: { id?: unknown } };
    const result = ticket.kind === "order" ? String(parsed.order?.id) : parsed.refresh_token;
    return answer(response, body, result);
  } catch (error) {
    return answer(undefined, String(error), undefined);
  }
}

function call(writer: Writer, ticket: Ticket): Promise<Response> {
  const { target, app, cookies } = writer;
  switch (ticket.kind) {
    case "refresh":
      return tokenCall(target, app, { grant_type: "refresh_token", refresh_token: ticket.value });
    case "exchange":
      return tokenCall(target, app, exchangeFields(app, ticket.value));
    case "consent":
      return postDecision(target, cookies, ticket.form!);
    case "order":
      return orderCall(writer, ticket.value);
  }
}

/** The success of a kind: 200, or a 302 carrying a code for a decision. */
export function succeeded(answer: WriteAnswer): boolean {
  if (answer.ticket.kind === "consent") return answer.status === 302 && answer.result !== undefined;
  return answer.status === 200 && answer.result !== undefined;
}

/**
 * Whether a successful answer's write is there after the fault: the rotated (or exchanged) refresh token rotates
 * again, the decision's code exchanges, the order reads back with its external reference. One call, after recovery.
 */
export async function visibleAfter(writer: Writer, answer: WriteAnswer): Promise<string | undefined> {
  const { target, app } = writer;
  const result = answer.result!;
  let response: Response;
  if (answer.ticket.kind === "consent") response = await tokenCall(target, app, exchangeFields(app, result));
  else if (answer.ticket.kind === "order") {
    response = await fetch(`${target.api}/v1/online-orders/${result}`, {
      headers: { authorization: `Bearer ${writer.shop.token}` },
    });
    const body = (await response.json()) as { order?: { externalReference?: string } };
    if (response.status === 200 && body.order?.externalReference === answer.ticket.value) return undefined;
    return `order ${result}: ${response.status} ${JSON.stringify(body)}`;
  } else response = await tokenCall(target, app, { grant_type: "refresh_token", refresh_token: result });
  const body = await response.text();
  return response.status === 200
    ? undefined
    : `${answer.ticket.kind} ${answer.ticket.value}: ${response.status} ${body}`;
}
