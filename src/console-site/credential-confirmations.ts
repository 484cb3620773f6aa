// "Are you sure?" before the two clicks that change live credentials (issue 42): rotating a client secret and
// revoking an API key. Each asks first, as deleting a webhook endpoint does: the page's title is the question, the
// card says what the answer does, "Yes, …" is the same form again with confirm=yes, and "Keep it" leads back
// changing nothing. A credential no longer listed gets the refusal the action itself would answer.
import { html } from "../web/html.js";
import type { ApiError } from "./console-api.js";
import { button, postForm } from "./ui.js";
import type { Reply, Visit } from "./visit.js";

/** Whether this POST is the confirmation's own (the action runs) rather than the first click (the question). */
export const confirmed = (visit: Visit) => visit.form.get("confirm") === "yes";

/** The question before a rotation of `client_id`'s secret; undefined when the app does not list that client id. */
export async function confirmRotation(visit: Visit, appId: string): Promise<Reply | ApiError> {
  const { t } = visit;
  const clientId = visit.form.get("client_id") ?? "";
  const app = await visit.api("getDeveloperApp", { appId });
  if (!app.ok) return app.error;
  if (!app.value.app!.credentials.some((credential) => credential.clientId === clientId))
    return { code: "developer.credential_not_found", params: {}, status: 404, fields: [] };
  const body = html`<p><code class="ltr">${clientId}</code></p>
<section class="card" aria-labelledby="confirm-heading"><h2 id="confirm-heading" tabindex="-1" autofocus>${t("console.rotateConfirmHeading")}</h2>
<p>${t("console.rotateConsequence")}</p>
<div class="actions">${postForm(
    `/apps/${appId}/rotate`,
    visit.csrf,
    button(t("console.rotateConfirm"), { kind: "danger", ariaLabel: `${t("console.rotateConfirm")}: ${clientId}` }),
    { className: "inline-form", hidden: { client_id: clientId, confirm: "yes" } },
  )}<a class="button secondary" href="/apps/${appId}/credentials">${t("console.confirmKeep")}</a></div></section>`;
  return visit.page(t("console.rotateConfirmTitle"), body);
}

/** The name of the app's live API key `api_key_id`; an ApiError when there is none. */
export async function liveKeyName(visit: Visit, appId: string): Promise<string | ApiError> {
  const apiKeyId = visit.form.get("api_key_id") ?? "";
  const app = await visit.api("getDeveloperApp", { appId });
  if (!app.ok) return app.error;
  const key = app.value.app!.apiKeys.find((candidate) => candidate.apiKeyId === apiKeyId && !candidate.revoked);
  return key ? key.name : { code: "developer.api_key_not_found", params: {}, status: 404, fields: [] };
}

/** The question before revoking the API key named `name` (the form's api_key_id). */
export function confirmRevoke(visit: Visit, appId: string, name: string): Reply {
  const { t } = visit;
  const apiKeyId = visit.form.get("api_key_id") ?? "";
  const body = html`<p><bdi>${name}</bdi></p>
<section class="card" aria-labelledby="confirm-heading"><h2 id="confirm-heading" tabindex="-1" autofocus>${t("console.revokeKeyConfirmHeading")}</h2>
<p>${t("console.revokeKeyConsequence")}</p>
<div class="actions">${postForm(
    `/apps/${appId}/api-keys/revoke`,
    visit.csrf,
    button(t("console.revokeKeyConfirm"), { kind: "danger", ariaLabel: `${t("console.revokeKeyConfirm")}: ${name}` }),
    { className: "inline-form", hidden: { api_key_id: apiKeyId, confirm: "yes" } },
  )}<a class="button secondary" href="/apps/${appId}/api-keys">${t("console.confirmKeep")}</a></div></section>`;
  return visit.page(t("console.revokeKeyConfirmTitle"), body);
}
