// An app's page, one section at a time (./app-sections.ts: the overview at /apps/{id}, then credentials, API keys,
// access requests, redirect URIs, review and settings at /apps/{id}/{section}, only those that apply; each rendered
// in ./app-section-views.ts), and the forms each section holds (./app-forms.ts): rename, submit, redirect URIs,
// secret rotation, production credentials, API keys, IP allowlists, access requests, archive. A form's POST keeps its
// path and answers with the section that holds it (a refusal beside the form, a value shown once at the top), or
// redirects to that section. Values shown once (secrets, keys) are the answer to the POST that made them, never
// stored by the site. A refused form's view also passes its problems to the error summary at the top of <main>
// (./error-summary.ts), each linked to the control it concerns there. Roles are the server's to enforce; the
// sections only offer what may work.
import { html } from "../web/html.js";
import { sectionApplies, sectionLabel, sectionMenu, sectionPath, type AppSection } from "./app-sections.js";
import { appWithRole, withApp } from "./app-lookup.js";
import { alert } from "./ui.js";
import type { Reply, Visit } from "./visit.js";
import { type AppState, type View, refusalText } from "./app-page-view.js";
import { sectionView } from "./app-section-views.js";

export type { AppState } from "./app-page-view.js";

/** The section that holds the form a state concerns (where its refusal is said beside the form). */
function sectionOf(state: AppState): AppSection {
  if (state.accessRequest) return "access-requests";
  if (state.allowlist) return "clientId" in state.allowlist.target ? "credentials" : "api-keys";
  switch (state.form) {
    case "rename":
    case "archive":
    case "pushed-requests":
    case "dpop":
      return "settings";
    case "submit":
      return "review";
    case "redirects":
      return "redirect-uris";
    case "rotate":
    case "production":
      return "credentials";
    case "keys":
      return "api-keys";
    default:
      return "overview";
  }
}

/**
 * One section of the app's page. A section that does not apply to this app (its product, its state, the viewer's
 * role) answers 404 to a GET; a POST's answer that would land there shows the overview, its refusal at the top.
 */
export async function appPage(
  visit: Visit,
  appId: string,
  section: AppSection,
  state: AppState = {},
  status = 200,
): Promise<Reply> {
  const { t } = visit;
  return withApp(visit, appWithRole(visit, appId), async (found) => {
    const { app, rights } = found;
    const applies = sectionApplies(section, app, rights);
    if (!applies && visit.method !== "POST")
      return visit.page(
        app.name,
        html`${alert("error", t("console.sectionUnavailable"))}<p><a href="${sectionPath(app.appId, "overview")}">${t("console.sectionOverview")}</a></p>`,
        { status: 404 },
      );
    const shown: AppSection = applies ? section : "overview";
    const archived = app.state === "ARCHIVED";
    const editable = !archived && rights.manageApps;
    const view: View = {
      visit,
      app,
      rights,
      editable,
      state,
      errorOf: (form) => (state.form === form ? state.error : undefined),
    };
    // A refusal is said beside its form when this view shows that form; otherwise (the role, an archived app, a
    // section that does not apply) at the top.
    const target = state.allowlist?.target;
    const listShown =
      target !== undefined &&
      editable &&
      ("clientId" in target
        ? app.credentials.some((credential) => credential.clientId === target.clientId)
        : app.apiKeys.some((key) => key.apiKeyId === target.apiKeyId && !key.revoked));
    const offered = editable || (state.form === "archive" && rights.archiveApps);
    const beside = shown === sectionOf(state) && (state.accessRequest !== undefined || (target ? listShown : offered));
    const content = await sectionView(view, shown);
    const body = html`${sectionMenu(visit, app, rights, shown)}
${state.notice ?? ""}
${archived ? alert("info", t("console.archivedNote")) : ""}
${rights.manageApps ? "" : html`<p class="muted">${t("console.appViewerNote")}</p>`}
${content.body}`;
    // The summary names what the view says: the refused form's problems beside it, else the refusal at the top.
    const problems = !state.error
      ? []
      : beside && content.problems.length > 0
        ? content.problems
        : refusalText(visit, state.error);
    return visit.page(app.name, body, {
      status,
      copyScript: true,
      problems,
      documentTitle: shown === "overview" ? app.name : `${sectionLabel(visit, shown)} · ${app.name}`,
      // A form's answer (at its POST path) switches language to the section it shows.
      switchPath: sectionPath(app.appId, shown),
    });
  });
}
