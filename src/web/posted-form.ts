// The first steps of every POST on both sites, before any token is compared: the browser must not say it came from
// another site (src/web/csrf.ts), and the body must be a form the kit can read (src/web/forms.ts). A refusal names
// its status and messages; each site shows them in its own page.
import type http from "node:http";
import { fromAnotherSite } from "./csrf.js";
import { readForm } from "./forms.js";
import type { MessageKey } from "./i18n.js";

export type PostedForm =
  | { ok: true; form: URLSearchParams }
  | { ok: false; status: number; titleKey: MessageKey; textKey: MessageKey };

/** The form of a POST from our own pages, or why it is refused (403 from another site, 400 unreadable). */
export async function readPostedForm(request: http.IncomingMessage, ownOrigin: string): Promise<PostedForm> {
  if (fromAnotherSite(request.headers.origin, request.headers["sec-fetch-site"], ownOrigin))
    return { ok: false, status: 403, titleKey: "common.refusedTitle", textKey: "common.otherSite" };
  const form = await readForm(request);
  if (!form) return { ok: false, status: 400, titleKey: "common.badRequestTitle", textKey: "common.formUnreadable" };
  return { ok: true, form };
}
