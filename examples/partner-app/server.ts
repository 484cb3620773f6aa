// The example partner app: a plain node:http server that serves the app's redirect URI. `/` offers to connect a
// merchant; `/connect` starts the consent (PKCE and state, by the partner client) and sends the browser to the consent
// site; the redirect URI's path receives the code, exchanges it, shows the access token's claims and makes a first
// call (GET /v1/items). The pending authorization is kept server side, keyed by a session cookie, so the callback is
// only accepted in the browser that started it.
import { randomBytes } from "node:crypto";
import http from "node:http";
import {
  createMemoryTokenStore,
  createPartnerClient,
  PartnerApiError,
  type PendingAuthorization,
} from "./partner-client.js";
import { formatMoney } from "./money.js";
import type { ExampleSettings } from "./settings.js";

const sessionCookie = "example_session";

export function createExampleServer(settings: ExampleSettings): http.Server {
  const tokenStore = createMemoryTokenStore();
  const client = createPartnerClient({
    baseUrl: settings.baseUrl,
    authUrl: settings.authUrl,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    redirectUri: settings.redirectUri,
    tokenStore,
  });
  const callbackPath = new URL(settings.redirectUri).pathname;
  /** Authorizations in progress, by session id (one per browser; a new /connect replaces it). */
  const pending = new Map<string, PendingAuthorization>();

  const routes: Record<string, (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>> = {
    "/": async (_request, response) => {
      page(response, 200, "Example partner app", [
        `<p>Client <code>${escapeHtml(settings.clientId)}</code> (${settings.environment}) against <code>${escapeHtml(settings.baseUrl)}</code>.</p>`,
        settings.loginHint ? `<p>On the consent screen, sign in as ${escapeHtml(settings.loginHint)}.</p>` : "",
        `<p><a id="connect" href="/connect">Connect a merchant</a></p>`,
      ]);
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

  return http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://example.invalid").pathname;
    const route = request.method === "GET" ? routes[path] : undefined;
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
}

/** The JWT's payload, decoded for display (the API verifies tokens; the app only shows what it holds). */
function claimsOf(accessToken: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<
    string,
    unknown
  >;
}

function cookieOf(request: http.IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function page(response: http.ServerResponse, status: number, title: string, body: string[]): void {
  response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  response.end(
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title><main><h1>${escapeHtml(title)}</h1>${body.join("")}</main></html>`,
  );
}
