// What both first calls (client credentials, ./first-call.ts; an ADSR app's API key, ./first-call-key.ts) show
// alike: the choice of an active sandbox merchant, a command in a box with its copy button, and an answer of the
// API as it came (status and body); where the runs go and what counts them.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import type { VouchedClients } from "../runtime/vouched-client.js";
import { html, jsonSample, type SafeHtml } from "../web/html.js";
import type { Problem, Visit } from "./visit.js";

/**
 * The organization's active sandbox merchants, the one chosen (form, query, else the first) and the choice; `none`
 * when the organization has no active one.
 */
export async function sandboxMerchantChoice(
  visit: Visit,
  app: App,
): Promise<{ chosen: number | undefined; choice: SafeHtml; none: boolean }> {
  const { t } = visit;
  const merchants = await visit.api("listOrganizationSandboxMerchants", { organizationId: Number(app.organizationId) });
  const active = merchants.ok ? merchants.value.merchants.filter((merchant) => merchant.active) : [];
  const chosen =
    Number(visit.form.get("merchant_id") ?? visit.query.get("merchant_id") ?? active[0]?.companyId ?? 0) || undefined;
  const choice =
    active.length === 0
      ? html`<p>${t("console.firstCallNoMerchant")} <a href="/organizations/${app.organizationId}">${t("console.provisionMerchant")}</a></p>`
      : // Radios, not a select: at most three merchants (sandboxMerchantLimit), and a long name wraps in a label
        // where a select cut it off at 375 px. The name is isolated, the company number left to right beside it.
        html`<fieldset class="field"><legend>${t("console.sandboxMerchant")}</legend>${active.map(
          (merchant) =>
            html`<div class="choice"><input type="radio" id="merchant-${String(merchant.companyId)}" name="merchant_id" value="${String(merchant.companyId)}"${Number(merchant.companyId) === chosen ? html` checked` : ""}> <label for="merchant-${String(merchant.companyId)}"><bdi>${merchant.name || String(merchant.companyId)}</bdi> <span class="muted ltr">(${String(merchant.companyId)})</span></label></div>`,
        )}</fieldset>`;
  // None active (and the list read): the page offers to create one first (./first-call-merchant.ts).
  return { chosen, choice, none: merchants.ok && active.length === 0 };
}

/** The merchant a run names: a positive company id from the form, else 0 (none). */
export function chosenMerchant(visit: Visit): number {
  const value = visit.form.get("merchant_id") ?? "";
  return /^[1-9]\d{0,15}$/.test(value) ? Number(value) : 0;
}

/** A command in its box (it wraps there) with a copy button (the copy script; without it the text stays selectable). */
export function commandBox(visit: Visit, id: string, label: string, text: string): SafeHtml {
  const { t } = visit;
  return html`<div class="command"><pre tabindex="0" aria-labelledby="${id}-heading"><code id="${id}">${text}</code></pre><button type="button" class="secondary" data-copy-target="${id}" data-copied-label="${t("common.copied")}" aria-label="${t("common.copy")}: ${label}" hidden>${t("common.copy")}</button></div>`;
}

/** One answer of the API: its status and its body, as they came. */
export function answerBlock(visit: Visit, label: string, result: { status: number; body: string }): SafeHtml {
  return html`<h4><bdi>${label}</bdi></h4><p>${visit.t("console.httpStatus")} <strong class="ltr" data-testid="status">${String(result.status)}</strong></p><pre tabindex="0"><code>${jsonSample(result.body)}</code></pre>`;
}

/**
 * A run's answers, right after the run's button in the same card (not below a page of commands: on a phone that was
 * 1,500 px away) and focused on load (tabindex="-1" and `autofocus`, as the error summary; no script), so the reader
 * and a screen reader land on it.
 */
export function runResult(visit: Visit, answers: SafeHtml): SafeHtml {
  return html`<div class="run-result" id="run-result" role="region" aria-labelledby="result-heading" tabindex="-1" autofocus><h3 id="result-heading">${visit.t("console.firstCallResult")}</h3>${answers}</div>`;
}

/** A refusal of a run: its text, and whether it is about the pasted secret or key (said beside it, linked to it). */
export interface RunRefusal {
  text: string;
  field?: boolean;
}

/** The error summary's entry of a refused run: linked to the secret's (or key's) control when it is about it. */
export function runProblems(
  visit: Visit,
  refusal: RunRefusal | undefined,
  control: { id: string; label: string },
): Problem[] {
  if (!refusal) return [];
  if (!refusal.field) return [{ text: refusal.text }];
  return [
    { text: visit.t("console.problemAt", { field: control.label, message: refusal.text }), href: `#${control.id}` },
  ];
}

/** Where the runs go: the front of this process, vouching for the developer's address. */
export interface FirstCallRoute {
  /** The front's own URL (with a trailing slash), once it listens. */
  apiUrl: () => string | undefined;
  vouchedClients: VouchedClients;
}

export interface FirstCallLimits {
  /** Counts a run; false when the developer's or the organization's minute is spent. */
  admit(accountId: number, organizationId: number): Promise<boolean>;
}
