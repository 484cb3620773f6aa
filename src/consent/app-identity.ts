// Who is asking, as the consent site's pages show an app: its initials on a colour fixed by its id, its name, whether
// it was reviewed, and the links its developer gave (website, privacy policy, terms).
import { html, type SafeHtml } from "../web/html.js";
import { translator, type Locale } from "../web/i18n.js";

export interface AppLinks {
  website?: string;
  privacyUrl?: string;
  termsUrl?: string;
}

/**
 * The app's initials (the first letter of its first two words, by grapheme so an Arabic or Devanagari name keeps
 * whole letters), for its avatar: we store no logo (docs/decisions.md, "Consent and console, second pass").
 */
export function initialsOf(name: string): string {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const words = name.split(/[\s\-_.]+/u).filter((word) => /[\p{L}\p{N}]/u.test(word));
  const first = (word: string) =>
    [...segmenter.segment(word)].find((part) => /[\p{L}\p{N}]/u.test(part.segment))?.segment ?? "";
  return words.slice(0, 2).map(first).join("").toLocaleUpperCase() || "?";
}

/** One of six background colours (white text on each passes WCAG AA), fixed per app by its id. */
function avatarColour(appId: string): number {
  let hash = 0;
  for (const char of appId) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 6;
}

/**
 * The app's avatar and names: who is asking. The name beside the avatar is its accessible text. Under the developer,
 * the app's pages its developer gave (website, privacy policy, terms): only those given, on one line.
 */
export function whoIsAsking(
  view: { appId: string; appName: string; organizationName: string; reviewed: boolean; links?: AppLinks },
  locale: Locale,
  headingId: string,
): SafeHtml {
  const t = translator(locale);
  return html`<div class="asker"><span class="avatar avatar-${avatarColour(view.appId)}" aria-hidden="true">${initialsOf(view.appName)}</span>
<div class="asker-names"><h2 id="${headingId}" class="asker-name">${view.appName}</h2>
<p class="asker-developer">${t("consent.byDeveloper", { developer: view.organizationName })} <span class="badge ${view.reviewed ? "reviewed" : "unreviewed"}">${view.reviewed ? t("consent.reviewed") : t("consent.notReviewed")}</span></p>
${view.links ? appLinks(view.links, locale) : ""}</div></div>`;
}

/**
 * The developer's links, each only when given; stored as https URLs checked when saved in the console
 * (src/credential/app-links.ts). `noopener noreferrer`: the developer's page gets neither this window nor the
 * consent URL (its query holds the authorize request).
 */
export function appLinks(links: AppLinks, locale: Locale): SafeHtml | string {
  const t = translator(locale);
  const items = [
    links.website
      ? html`<li><a href="${links.website}" rel="noopener noreferrer">${t("consent.website")}</a></li>`
      : "",
    links.privacyUrl
      ? html`<li><a href="${links.privacyUrl}" rel="noopener noreferrer">${t("consent.privacyPolicy")}</a></li>`
      : "",
    links.termsUrl
      ? html`<li><a href="${links.termsUrl}" rel="noopener noreferrer">${t("consent.terms")}</a></li>`
      : "",
  ].filter((item) => item !== "");
  return items.length > 0 ? html`<ul class="app-links asker-links">${items}</ul>` : "";
}
