// The consent site's HTML: small, script-free pages whose accessible names are part of the contract ("Email",
// "Password", "Sign in", "Allow", "Deny"). Every value is escaped; nothing is inlined that CSP would have to allow.
import { entryOf, messageFor, type ErrorCode } from "../errors/index.js";
import type { Locale } from "../errors/locale.js";

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char]!);

const hidden = (fields: Record<string, string | undefined>) =>
  Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join("");

export function layout(title: string, body: string, locale: Locale = "en"): string {
  // Arabic reads right to left (the dir attribute); the other locales left to right.
  return `<!doctype html><html lang="${locale}"${locale === "ar" ? ' dir="rtl"' : ""}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/**
 * An error shown to the merchant with its code (spec: consent-screen codes are shown, never redirected). A server
 * outage (5xx) is not the app's fault and passes: its title says to try again, not that the app cannot connect.
 */
export function errorPage(code: ErrorCode, locale: Locale, params: Record<string, string> = {}): string {
  return layout(
    entryOf(code).status >= 500 ? "Temporarily unavailable" : "Cannot connect this app",
    `<section role="alert"><p>${escapeHtml(messageFor(code, params, locale))}</p><p>Error code: <code>${escapeHtml(code)}</code></p></section>`,
    locale,
  );
}

export function signInPage(options: { returnTo: string; csrf: string; failed?: boolean; context?: string }): string {
  return layout(
    "Sign in to your back office",
    `${options.context ? `<p>${escapeHtml(options.context)}</p>` : ""}` +
      (options.failed ? `<p role="alert">The email or password is not correct.</p>` : "") +
      `<form method="post" action="/oauth/sign-in">${hidden({ csrf: options.csrf, return_to: options.returnTo })}` +
      `<p><label for="email">Email</label> <input id="email" name="email" type="email" autocomplete="username" required></p>` +
      `<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password" required></p>` +
      `<p><button type="submit">Sign in</button></p></form>`,
  );
}

export interface ConsentView {
  appName: string;
  organizationName: string;
  product: string;
  scopes: string[];
  companyName: string;
  companyId: number;
  email: string;
  owner: boolean;
  csrf: string;
  /** The authorize parameters, carried back on the decision POST and checked again there. */
  params: Record<string, string | undefined>;
}

export function consentPage(view: ConsentView): string {
  const scopes = view.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join("");
  const summary =
    `<p><strong>${escapeHtml(view.appName)}</strong> by <strong>${escapeHtml(view.organizationName)}</strong> wants to connect to ` +
    `<strong>${escapeHtml(view.companyName)}</strong> (company ${view.companyId}).</p>` +
    `<p>Product: ${escapeHtml(view.product)}. It will be able to:</p><ul aria-label="Permissions">${scopes}</ul>` +
    `<p>Signed in as ${escapeHtml(view.email)}.</p>`;
  const decision = view.owner
    ? `<form method="post" action="/oauth/authorize/decision">${hidden({ csrf: view.csrf, ...view.params })}` +
      `<button type="submit" name="decision" value="allow">Allow</button> <button type="submit" name="decision" value="deny">Deny</button></form>`
    : `<section role="note" aria-label="Owner approval needed"><h2>Ask your account owner</h2>` +
      `<p>Only the account owner of ${escapeHtml(view.companyName)} can connect apps. Ask them to open this link and approve it.</p></section>`;
  return layout("Connect an app", summary + decision + signOutForm(view.csrf));
}

export interface ConnectionView {
  appId: string;
  appName: string;
  organizationName: string;
  product: string;
  environment: string;
  since: string;
}

export function connectionsPage(options: { companyName: string; owner: boolean; csrf: string; connections: ConnectionView[] }): string {
  const rows = options.connections
    .map(
      (row) =>
        `<li><strong>${escapeHtml(row.appName)}</strong> by ${escapeHtml(row.organizationName)} (${escapeHtml(row.product)}, ${escapeHtml(row.environment)}, connected ${escapeHtml(row.since)})` +
        (options.owner
          ? ` <form method="post" action="/oauth/connections/disconnect">${hidden({ csrf: options.csrf, app_id: row.appId })}` +
            `<button type="submit" aria-label="Disconnect ${escapeHtml(row.appName)}">Disconnect</button></form>`
          : "") +
        `</li>`,
    )
    .join("");
  const list = options.connections.length > 0 ? `<ul aria-label="Connected apps">${rows}</ul>` : `<p>No apps are connected.</p>`;
  const note = options.owner ? "" : `<p role="note">Only the account owner can disconnect apps.</p>`;
  return layout(`Apps connected to ${options.companyName}`, list + note + signOutForm(options.csrf));
}

export function messagePage(title: string, text: string): string {
  return layout(title, `<p>${escapeHtml(text)}</p>`);
}

function signOutForm(csrf: string): string {
  return `<form method="post" action="/oauth/sign-out">${hidden({ csrf })}<button type="submit">Sign out</button></form>`;
}

export interface AccessRequestView {
  id: string;
  appName: string;
  organizationName: string;
  state: string;
  storeIds: number[];
  approvedStoreIds: number[];
  created: string;
  expires: string;
}

/**
 * The owner's ADSR access requests: pending ones with a store checkbox each (all checked: approve with all or
 * fewer) and Approve / Decline; approved ones with Withdraw. Employees see the lists and a note, no buttons.
 */
export function accessRequestsPage(options: { companyName: string; owner: boolean; csrf: string; pending: AccessRequestView[]; approved: AccessRequestView[] }): string {
  const who = (row: AccessRequestView) => `<strong>${escapeHtml(row.appName)}</strong> by ${escapeHtml(row.organizationName)}`;
  const pending = options.pending
    .map((row) => {
      const stores = row.storeIds
        .map(
          (store) =>
            `<li><label><input type="checkbox" name="store_ids" value="${store}" checked${options.owner ? "" : " disabled"}> Store ${store}</label></li>`,
        )
        .join("");
      const body =
        `<p>${who(row)} asks to read sales reports and stores (requested ${escapeHtml(row.created)}, expires ${escapeHtml(row.expires)}).</p>` +
        `<ul aria-label="Requested stores">${stores}</ul>`;
      if (!options.owner) return `<li>${body}</li>`;
      return (
        `<li><form method="post" action="/oauth/access-requests/decision">${hidden({ csrf: options.csrf, access_request_id: row.id })}${body}` +
        `<button type="submit" name="decision" value="approve" aria-label="Approve ${escapeHtml(row.appName)}">Approve</button> ` +
        `<button type="submit" name="decision" value="decline" aria-label="Decline ${escapeHtml(row.appName)}">Decline</button></form></li>`
      );
    })
    .join("");
  const approved = options.approved
    .map(
      (row) =>
        `<li>${who(row)}: stores ${row.approvedStoreIds.map((store) => `<code>${store}</code>`).join(", ")}` +
        (options.owner
          ? ` <form method="post" action="/oauth/access-requests/withdraw">${hidden({ csrf: options.csrf, access_request_id: row.id })}` +
            `<button type="submit" aria-label="Withdraw ${escapeHtml(row.appName)}">Withdraw</button></form>`
          : "") +
        `</li>`,
    )
    .join("");
  const note = options.owner ? "" : `<p role="note">Only the account owner can approve, decline or withdraw access requests.</p>`;
  return layout(
    `Access requests for ${options.companyName}`,
    `<h2>Pending</h2>` +
      (options.pending.length > 0 ? `<ul aria-label="Pending access requests">${pending}</ul>` : `<p>No pending access requests.</p>`) +
      `<h2>Approved</h2>` +
      (options.approved.length > 0 ? `<ul aria-label="Approved access requests">${approved}</ul>` : `<p>No approved access requests.</p>`) +
      note +
      signOutForm(options.csrf),
  );
}
