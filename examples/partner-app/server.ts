// The example partner app: a plain node:http server that serves the app's redirect URI. `/` offers to connect a
// merchant; `/connect` starts the consent (PKCE and state, by the partner client) and sends the browser to the consent
// site; the redirect URI's path receives the code, exchanges it, shows the access token's claims and makes a first
// call (GET /v1/items). The pending authorization is kept server side, keyed by a session cookie, so the callback is
// only accepted in the browser that started it. `/orders` (with the ONLINE_ORDER app's sandbox pair) places an order
// for a sandbox merchant and shows it moving: the sandbox merchant accepts it, then it becomes ready and completed.
// `subscribeToEvents` registers a webhook endpoint per app at /webhooks/{app}; what arrives there verified is listed
// at /events.
import { randomBytes } from "node:crypto";
import http from "node:http";
import {
  createMemoryTokenStore,
  createPartnerClient,
  PartnerApiError,
  type PendingAuthorization,
} from "./partner-client.js";
import { createEventInbox, merchantOf, type Subscription, summaryOf } from "./events.js";
import { escapeHtml, page } from "./html.js";
import { createMenuBoard } from "./menu.js";
import { menuPage } from "./menu-page.js";
import { formatMoney } from "./money.js";
import type { ExampleSettings } from "./settings.js";

const sessionCookie = "example_session";

export interface ExampleServer {
  server: http.Server;
  /**
   * Registers the webhook endpoints (the server must be listening: events may arrive at once). A failure (say the
   * API refuses a loopback URL in production mode) is kept and shown on /events, never fatal.
   */
  subscribeToEvents(): Promise<Subscription[]>;
}

export function createExampleServer(settings: ExampleSettings): ExampleServer {
  const tokenStore = createMemoryTokenStore();
  const client = createPartnerClient({
    baseUrl: settings.baseUrl,
    authUrl: settings.authUrl,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    redirectUri: settings.redirectUri,
    tokenStore,
    // DPoP-bound tokens (a key made in memory at start) and pushed authorization requests, when asked for.
    ...(settings.dpop ? { dpop: true, pushedAuthorization: true } : {}),
  });
  const callbackPath = new URL(settings.redirectUri).pathname;
  // The ONLINE_ORDER app: sandbox credentials mint without a browser (POST /v1/token), for one sandbox merchant.
  const orders = settings.onlineOrder
    ? {
        merchantId: settings.onlineOrder.merchantId,
        client: createPartnerClient({
          baseUrl: settings.baseUrl,
          authUrl: settings.authUrl,
          clientId: settings.onlineOrder.clientId,
          clientSecret: settings.onlineOrder.clientSecret,
          redirectUri: settings.redirectUri,
          tokenStore: createMemoryTokenStore(),
        }),
      }
    : undefined;
  const orderingMerchant = async () => {
    if (!orders) throw new Error("no ONLINE_ORDER app configured");
    await orders.client.connectSandbox(orders.merchantId);
    return orders.client.merchant(orders.merchantId);
  };
  // The menu of the ordering merchant's stores, kept current by the events either endpoint receives.
  const menus = orders ? createMenuBoard(orders.merchantId, orderingMerchant) : undefined;
  const inbox = createEventInbox(undefined, (event) => menus?.apply(event));
  const origin = new URL(settings.redirectUri).origin;
  let subscribeFailure: string | undefined;
  /** Authorizations in progress, by session id (one per browser; a new /connect replaces it). */
  const pending = new Map<string, PendingAuthorization>();

  const routes: Record<string, (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>> = {
    "/": async (_request, response) => {
      page(response, 200, "Example partner app", [
        `<p>Client <code>${escapeHtml(settings.clientId)}</code> (${settings.environment}) against <code>${escapeHtml(settings.baseUrl)}</code>.</p>`,
        settings.loginHint ? `<p>On the consent screen, sign in as ${escapeHtml(settings.loginHint)}.</p>` : "",
        `<p><a id="connect" href="/connect">Connect a merchant</a></p>`,
        orders
          ? `<p><a id="orders" href="/orders">Place an order</a> (the ONLINE_ORDER app, sandbox merchant ${orders.merchantId})</p>` +
            `<p><a id="menu" href="/menu">The menu</a> of its stores, kept current by the events</p>`
          : "",
        `<p><a id="events" href="/events">Events received</a> (webhooks)</p>`,
      ]);
    },
    "/events": async (request, response) => {
      if (request.method === "POST") {
        await inbox.sendTests();
        response.writeHead(303, { location: "/events", "cache-control": "no-store" });
        response.end();
        return;
      }
      const subscriptions = inbox.subscriptions();
      const events = inbox.events();
      page(response, 200, "Events received", [
        `<meta http-equiv="refresh" content="3">`,
        subscribeFailure
          ? `<p id="subscribe-error">No webhook endpoint could be registered: ${escapeHtml(subscribeFailure)}</p>`
          : "",
        `<ul id="endpoints">${subscriptions.map((entry) => `<li>${escapeHtml(entry.app)}: <code>${escapeHtml(entry.url)}</code> (endpoint ${escapeHtml(entry.endpointId)})</li>`).join("")}</ul>`,
        subscriptions.length > 0
          ? `<form method="post" action="/events"><button type="submit">Send a test event</button></form>`
          : "",
        events.length === 0
          ? `<p id="no-events">No event yet. Connect a merchant or place an order; this page reloads every three seconds.</p>`
          : `<table id="received"><caption>The last ${events.length} events, newest first, each verified with the endpoint's secret</caption>` +
            `<thead><tr><th scope="col">Received</th><th scope="col">Type</th><th scope="col">App</th><th scope="col">Merchant</th><th scope="col">What</th><th scope="col">webhook-id</th></tr></thead><tbody>` +
            events
              .map(
                (entry) =>
                  `<tr><td>${entry.receivedAt.toISOString()}</td><td>${escapeHtml(entry.event.type)}</td><td>${escapeHtml(entry.app)}</td>` +
                  `<td>${merchantOf(entry.event) ?? ""}</td><td>${escapeHtml(summaryOf(entry.event))}</td><td><code>${escapeHtml(entry.id)}</code></td></tr>`,
              )
              .join("") +
            `</tbody></table>`,
        `<p><a href="/">Back to the start page</a></p>`,
      ]);
    },
    "/orders": async (request, response) => {
      const merchant = await orderingMerchant();
      if (request.method === "POST") {
        const form = new URLSearchParams(await bodyOf(request));
        try {
          const order = await merchant.orders.place({
            storeId: Number(form.get("storeId")),
            lines: [{ itemId: Number(form.get("itemId")), quantity: Number(form.get("quantity")) }],
            fulfilment: { type: "PICKUP" },
            customer: { name: form.get("customer") || "Example customer" },
            // Our own id of the order: after a network error, merchant.orders.findByReference finds it again.
            externalReference: `example-${randomBytes(6).toString("hex")}`,
          });
          response.writeHead(303, { location: `/orders/${order.id}`, "cache-control": "no-store" });
          response.end();
        } catch (error) {
          if (!(error instanceof PartnerApiError)) throw error;
          page(response, 400, "The order was not placed", [
            `<p id="error">${escapeHtml(String(error.code ?? "error"))}: ${escapeHtml(error.message)}</p>`,
            `<p><a href="/orders">Try again</a></p>`,
          ]);
        }
        return;
      }
      const [{ stores }, { items }] = await Promise.all([merchant.stores.list(), merchant.items.list({ limit: 5 })]);
      page(response, 200, "Place an order", [
        `<form id="order" method="post" action="/orders">`,
        `<label>Store <select name="storeId">${stores.map((store) => `<option value="${store.id}">${escapeHtml(store.name)}</option>`).join("")}</select></label> `,
        `<label>Item <select name="itemId">${items.map((item) => `<option value="${item.id}">${escapeHtml(item.name)}: ${escapeHtml(formatMoney(item.priceMinor, item.currency))}</option>`).join("")}</select></label> `,
        `<label>Quantity <input name="quantity" type="number" min="1" max="99" value="1"></label> `,
        `<label>Customer <input name="customer" value="Example customer"></label> `,
        `<button type="submit">Place the order</button></form>`,
        `<p>A customer named REJECT is rejected by the sandbox merchant; any other is accepted, then ready, then completed.</p>`,
      ]);
    },
    "/menu": async (request, response) => {
      const stores = menus ? await menus.stores() : [];
      const asked = Number(new URL(request.url ?? "/", "http://example.invalid").searchParams.get("storeId"));
      const store = stores.find((entry) => entry.id === asked) ?? stores[0];
      if (!store || !menus) {
        page(response, 404, "No store", [`<p>The merchant has no store.</p>`]);
        return;
      }
      menuPage(response, stores, await menus.menuOf(store.id), new Date());
    },
    "/connect": async (_request, response) => {
      const session = randomBytes(24).toString("base64url");
      const authorization = await client.startAuthorization();
      pending.set(session, authorization);
      response.writeHead(302, {
        location: authorization.url,
        "set-cookie": `${sessionCookie}=${session}; Path=/; HttpOnly; SameSite=Lax`,
        "cache-control": "no-store",
      });
      response.end();
    },
    [callbackPath]: async (request, response) => {
      const session = cookieOf(request, sessionCookie);
      const authorization = session === undefined ? undefined : pending.get(session);
      if (!session || !authorization) {
        page(response, 400, "No authorization in progress", [`<p>Start again at <a href="/">the start page</a>.</p>`]);
        return;
      }
      pending.delete(session);
      try {
        // `error` before `code`, `state` compared, the code exchanged with the PKCE verifier: all in the client.
        const connection = await client.completeAuthorization(
          new URL(request.url ?? "/", settings.redirectUri),
          authorization,
        );
        const tokens = await tokenStore.get(connection.merchantId);
        const claims = tokens ? claimsOf(tokens.accessToken) : {};
        const { items } = await client.merchant(connection.merchantId).items.list({ limit: 5 });
        page(response, 200, `Connected merchant ${connection.merchantId}`, [
          `<h2>The access token's claims</h2>`,
          `<pre id="claims">${escapeHtml(JSON.stringify(claims, null, 2))}</pre>`,
          `<p>Scope: <code>${escapeHtml(connection.scope)}</code>; API base URL: <code>${escapeHtml(connection.apiBaseUrl)}</code>.</p>`,
          `<h2>A first call: GET /v1/items?limit=5</h2>`,
          `<ul id="items">${items.map((item) => `<li>${escapeHtml(item.name)} (${escapeHtml(item.code)}): ${escapeHtml(formatMoney(item.priceMinor, item.currency))}</li>`).join("")}</ul>`,
          `<p><a href="/">Connect another merchant</a></p>`,
        ]);
      } catch (error) {
        if (!(error instanceof PartnerApiError)) throw error;
        page(response, 400, "The merchant was not connected", [
          `<p id="error">${escapeHtml(String(error.code ?? error.oauthError ?? "error"))}: ${escapeHtml(error.message)}</p>`,
          `<p><a href="/">Try again</a></p>`,
        ]);
      }
    },
  };

  /** One order, as it is now; the page reloads itself until the order's story is over, so it is seen moving. */
  const orderPage = async (id: number, response: http.ServerResponse) => {
    const order = await (await orderingMerchant()).orders.get(id);
    const final = ["REJECTED", "COMPLETED", "CANCELLED"].includes(order.status);
    page(response, 200, `Order ${order.id}`, [
      final ? "" : `<meta http-equiv="refresh" content="3">`,
      `<p>Status: <strong id="status">${escapeHtml(order.status)}</strong>${order.reason ? ` (${escapeHtml(order.reason)})` : ""}; updated ${escapeHtml(order.updatedAt)}.</p>`,
      order.promisedFor ? `<p>Promised for ${escapeHtml(order.promisedFor)}.</p>` : "",
      `<ul id="lines">${order.lines.map((line) => `<li>${line.quantity} × ${escapeHtml(line.name)}${escapeHtml(choicesOf(line.modifiers))}: ${escapeHtml(formatMoney(line.totalMinor, order.currency))}</li>`).join("")}</ul>`,
      `<p>Total <span id="total">${escapeHtml(formatMoney(order.totalMinor, order.currency))}</span>.</p>`,
      `<p><a href="/orders">Place another order</a></p>`,
    ]);
  };

  /** A delivery to one of the endpoints: the raw bytes, verified before anything reads them. */
  const receiveEvent = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://example.invalid").pathname;
    const outcome = inbox.receive(path, await bodyOf(request, 256 * 1024), request.headers);
    response.writeHead(outcome.status, { "content-type": "text/plain; charset=utf-8" });
    response.end(outcome.reason ?? "");
  };

  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://example.invalid").pathname;
    const orderId = /^\/orders\/([1-9][0-9]{0,14})$/.exec(path)?.[1];
    const posts = ["/orders", "/events"];
    const route =
      request.method === "POST" && inbox.accepts(path)
        ? receiveEvent
        : orders && orderId && request.method === "GET"
          ? (_: http.IncomingMessage, answer: http.ServerResponse) => orderPage(Number(orderId), answer)
          : (path === "/orders" || path === "/menu") && !orders
            ? undefined
            : request.method === "GET" || (request.method === "POST" && posts.includes(path))
              ? routes[path]
              : undefined;
    if (!route) {
      page(response, 404, "Not found", []);
      return;
    }
    route(request, response).catch((error: unknown) => {
      process.stderr.write(
        `example partner app: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      if (!response.headersSent) page(response, 500, "Something failed", [`<p>See the example's output.</p>`]);
    });
  });

  return {
    server,
    async subscribeToEvents() {
      try {
        await inbox.subscribe(
          settings.environment === "sandbox" ? "FULL (sandbox)" : "FULL (production)",
          client,
          `${origin}/webhooks/full`,
        );
        if (orders) await inbox.subscribe("ONLINE_ORDER (sandbox)", orders.client, `${origin}/webhooks/orders`);
      } catch (error) {
        subscribeFailure = error instanceof Error ? error.message : String(error);
      }
      return inbox.subscriptions();
    },
  };
}

/** A line's modifiers as the kitchen reads them: " (Sourdough, 2 × Bacon)"; nothing for none. */
function choicesOf(modifiers: ReadonlyArray<{ name: string; quantity: number }>): string {
  if (modifiers.length === 0) return "";
  return ` (${modifiers.map((modifier) => `${modifier.quantity > 1 ? `${modifier.quantity} × ` : ""}${modifier.name}`).join(", ")})`;
}

/** The JWT's payload, decoded for display (the API verifies tokens; the app only shows what it holds). */
function claimsOf(accessToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
}

/** A request body as UTF-8, at most `limit` bytes (a form: 4 KiB). */
async function bodyOf(request: http.IncomingMessage, limit = 4096): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error("request body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function cookieOf(request: http.IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}
