// The app a page is about, looked up before anything else on it: an app the API does not show this developer (none
// such, or of another organization) is the same page for every page of an app, in the API's status.
import { rightsOf } from "./labels.js";
import type { ApiError } from "./console-api.js";
import { alert } from "./ui.js";
import { errorText, type Reply, type Visit } from "./visit.js";

type Refused = { ok: false; error: ApiError };

/** The app and the viewer's role in its organization (the page offers only what the role may do). */
export async function appWithRole(visit: Visit, appId: string) {
  const [result, orgs] = await Promise.all([
    visit.api("getDeveloperApp", { appId }),
    visit.api("listDeveloperOrganizations"),
  ]);
  if (!result.ok) return result;
  const role = orgs.ok
    ? orgs.value.organizations.find((org) => org.organizationId === result.value.app!.organizationId)?.role
    : undefined;
  return { ok: true as const, app: result.value.app!, rights: rightsOf(role) };
}

/** Renders the page of an app once `loaded` found it; else the page saying the app is unknown, in the API's status. */
export async function withApp<Found extends { ok: true }>(
  visit: Visit,
  loaded: Promise<Refused | Found>,
  render: (found: Found) => Reply | Promise<Reply>,
): Promise<Reply> {
  const found = await loaded;
  if (isRefused(found)) {
    const { t, locale } = visit;
    return visit.page(t("console.appTitleUnknown"), alert("error", errorText(found.error, locale, t)), {
      status: found.error.status,
    });
  }
  return render(found);
}

function isRefused(result: Refused | { ok: true }): result is Refused {
  return !result.ok;
}
