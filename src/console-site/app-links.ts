// The app's links for merchants (website, privacy policy, terms) in the console: the three controls the create form
// and the Settings form share, what a refusal of them says (each broken rule in words, beside its control and in
// the error summary), and which links an app still lacks before review.
import type { App } from "../../gen/partnerapi/v1/credential_service_pb.js";
import { html, type SafeHtml } from "../web/html.js";
import { formatNumber, type MessageKey } from "../web/i18n.js";
import type { ApiError } from "./console-api.js";
import { apiFieldPath, refusalOf, typed, type FormFields, type Refusal } from "./error-summary.js";
import { field } from "./ui.js";
import type { Visit } from "./visit.js";

/** The links' form names, which are also their JSON names in the console API. */
export const linkNames = ["websiteUrl", "privacyPolicyUrl", "termsUrl"] as const;
export type LinkName = (typeof linkNames)[number];

const labels: Record<LinkName, MessageKey> = {
  websiteUrl: "console.websiteUrl",
  privacyPolicyUrl: "console.privacyPolicyUrl",
  termsUrl: "console.termsUrl",
};

/** The three controls as the error summary names and links them. */
export function linkFields(visit: Visit): FormFields {
  return Object.fromEntries(linkNames.map((name) => [name, { id: `field-${name}`, label: visit.t(labels[name]) }]));
}

/** The links an app lacks (review needs all three), by their form names. */
export function missingLinks(app: App): LinkName[] {
  return linkNames.filter((name) => app[name] === "");
}

/** The links a form sent, as the API takes them: only those the form had (an older page's form leaves them alone). */
export function linksOfForm(visit: Visit): Partial<Record<LinkName, string>> {
  const links: Partial<Record<LinkName, string>> = {};
  for (const name of linkNames) {
    const value = visit.form.get(name);
    if (value !== null) links[name] = value.trim();
  }
  return links;
}

/** "Website and Terms of service", in the page's language. */
export function linkList(visit: Visit, names: readonly LinkName[]): string {
  return new Intl.ListFormat(visit.locale, { type: "conjunction" }).format(names.map((name) => visit.t(labels[name])));
}

const ruleKeys: Record<string, MessageKey> = {
  not_a_url: "console.linkRule.not_a_url",
  https_required: "console.linkRule.https_required",
  max_length_2000: "console.linkRule.max_length_2000",
  credentials_not_allowed: "console.linkRule.credentials_not_allowed",
  required: "console.linkRule.required",
};

/**
 * How a form holding the links (and `others`, its other controls) says `error`: a broken link rule
 * (developer.app_link_invalid) or a link an app in review must keep (developer.app_links_missing) in words beside
 * each link it concerns, one summary entry each; any other refusal as refusalOf says it.
 */
export function linksRefusal(visit: Visit, error: ApiError | undefined, others: FormFields): Refusal {
  const fields = { ...others, ...linkFields(visit) };
  if (error?.code !== "developer.app_link_invalid" && error?.code !== "developer.app_links_missing")
    return refusalOf(visit, error, fields);
  const said = new Map<string, string>();
  const details = Array.isArray(error.details) ? error.details : [];
  for (const detail of details) {
    const { field: path, rule } = (detail ?? {}) as { field?: unknown; rule?: unknown };
    if (typeof path !== "string" || typeof rule !== "string") continue;
    const name = apiFieldPath(path).name;
    const key = ruleKeys[rule];
    const control = fields[name];
    if (!key || !control || said.has(name)) continue;
    said.set(name, visit.t(key, { field: control.label, limit: formatNumber(visit.locale, 2000) }));
  }
  // Without details the refusal still names its fields (params): said generally, as the API says it.
  if (said.size === 0) return refusalOf(visit, error, fields);
  return {
    at: (name) => said.get(name),
    general: undefined,
    problems: [...said].map(([name, text]) => ({ text, href: `#${fields[name]!.id}` })),
  };
}

/**
 * The three controls: what was typed when the form was refused, else the app's links (`current`); `explain` says
 * what the links are for and when they are needed.
 */
export function linkInputs(
  visit: Visit,
  options: { error: ApiError | undefined; refusal: Refusal; current?: App; explain: string },
): SafeHtml {
  const { t } = visit;
  const inputs = linkNames.map((name) =>
    field({
      label: t(labels[name]),
      name,
      type: "url",
      autocomplete: "url",
      ltr: true,
      value: typed(visit, options.error, name) ?? options.current?.[name] ?? undefined,
      error: options.refusal.at(name),
    }),
  );
  return html`<fieldset class="app-link-fields"><legend>${t("console.linksHeading")}</legend>
<p class="hint">${t("console.linksExplain")} ${options.explain}</p>
${inputs}</fieldset>`;
}
