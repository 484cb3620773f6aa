// The first call in an organization with no active sandbox merchant: every call names one (merchant_id, companyId),
// and without it the token call answers 400 developer.merchant_required. So the page shows no command that cannot
// work: it offers to create the merchant first, here, and after it shows the commands and the run with its id.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { refusalOf, typed } from "./error-summary.js";
import { button, field, postForm } from "./ui.js";
import type { Problem, Reply, Visit } from "./visit.js";
import { merchantProvisionedNotice } from "./workspace-pages.js";

/** What the merchant step of the first call has to show: its refusal, or the notice of the merchant it made. */
export interface MerchantStep {
  error?: ApiError;
  notice?: SafeHtml;
}

/** The step's card (a form creating the organization's sandbox merchant) and its refusal's summary entries. */
export function merchantFirst(
  visit: Visit,
  app: App,
  step: MerchantStep | undefined,
): { html: SafeHtml; problems: Problem[] } {
  const { t } = visit;
  const error = step?.error;
  const refusal = refusalOf(visit, error, {
    name: { id: "field-merchant-name", label: t("console.merchantName") },
    country: { id: "field-country", label: t("console.country") },
  });
  const form = postForm(
    `/apps/${app.appId}/first-call/sandbox-merchant`,
    visit.csrf,
    html`${field({ id: "field-merchant-name", label: t("console.merchantName"), name: "name", value: typed(visit, error, "name"), error: refusal.at("name") })}
${field({ label: t("console.country"), name: "country", required: true, value: typed(visit, error, "country") ?? "GB", hint: t("console.countryHint"), error: refusal.at("country"), ltr: true })}
<div class="actions">${button(t("console.provisionMerchant"))}</div>`,
  );
  return {
    html: html`<section class="card" aria-labelledby="merchant-step-heading"><h2 id="merchant-step-heading">${t("console.firstCallMerchantHeading")}</h2>
<p>${t("console.firstCallNoMerchant")} ${t("console.firstCallMerchantExplain")}</p>
${form}</section>`,
    problems: refusal.problems,
  };
}

/**
 * Creates the organization's sandbox merchant from the first call's page (the organization page's form does the
 * same) and shows the first call again: with the merchant's owner login (shown once) and the commands naming it, or
 * with the refusal beside the step's form.
 */
export async function provisionForFirstCall(
  visit: Visit,
  appId: string,
  show: (step: MerchantStep, status?: number) => Promise<Reply>,
): Promise<Reply> {
  const found = await visit.api("getDeveloperApp", { appId });
  if (!found.ok) return show({ error: found.error }, found.error.status);
  const name = visit.form.get("name") ?? "";
  const result = await visit.api("provisionOrganizationSandboxMerchant", {
    organizationId: Number(found.value.app!.organizationId),
    country: (visit.form.get("country") ?? "").trim().toUpperCase(),
    ...(name ? { name } : {}),
  });
  if (!result.ok) return show({ error: result.error }, result.error.status);
  return show({ notice: merchantProvisionedNotice(visit, result.value.merchant!, result.value.owner!) });
}
