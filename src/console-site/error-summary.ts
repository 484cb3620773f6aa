// What a refused console form says, and where: the API's refusal in words a developer reads (its field paths,
// `storeIds.0` or `allowed_ips[0]`, become the fields' visible labels, an index said as the line or entry it is),
// the error beside each field it concerns, and the error summary at the top of <main> (the GOV.UK design system's
// pattern: focused on load without script, one link per field to that field's control). One helper for every form:
// a page only says which of its controls stands for which API field.
import { html, type SafeHtml } from "../web/html.js";
import type { Translate } from "../web/i18n.js";
import type { ApiError } from "./console-api.js";
import { errorText, type Problem, type Visit } from "./visit.js";

/** A control of a form, as the summary names and links it. */
export interface FormField {
  /** The control's id (the summary's link leads there: focus moves to it). */
  id: string;
  /** Its visible label in the page's language. */
  label: string;
  /** How an index into this field is said: a textarea of one entry a line, or a list typed on one line. */
  items?: "line" | "entry";
}

/** A form's controls, keyed by the API's JSON name of the field each one fills (`storeIds`, `allowedIps`). */
export type FormFields = Record<string, FormField>;

export interface Refusal {
  /** The message beside the control of `name` (a key of the form's fields), when the refusal concerns it. */
  at(name: string): string | undefined;
  /** The message when the refusal concerns none of the form's controls (shown as the form's alert). */
  general: string | undefined;
  /** The summary's entries. */
  problems: Problem[];
}

const none: Refusal = { at: () => undefined, general: undefined, problems: [] };

/**
 * Codes that name no field but mean one: a duplicate is about the value typed in that field (an invitation's email,
 * a key's name, an endpoint's URL), so it is said beside it and the summary links there.
 */
const fieldMeant: Partial<Record<ApiError["code"], string>> = {
  "developer.invitation_pending": "email",
  "developer.api_key_name_taken": "name",
  "developer.webhook_url_taken": "url",
};

/** An API field path (`storeIds.0`, `allowed_ips[1]`, `redirect_uris[0]`, `email`): its JSON name and index. */
export function apiFieldPath(path: string): { name: string; index?: number } {
  const match = /^([A-Za-z][A-Za-z0-9_]*)(?:\[(\d+)\]|\.(\d+))?/.exec(path.trim());
  if (!match) return { name: path.trim() };
  const name = match[1]!.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
  const index = match[2] ?? match[3];
  return index === undefined ? { name } : { name, index: Number(index) };
}

/** A field path in words: the control's label, and the line or entry an index points at (counted from 1). */
function inWords(t: Translate, fields: FormFields, path: string): string {
  const { name, index } = apiFieldPath(path);
  const field = fields[name];
  if (!field) return path;
  if (index === undefined) return field.label;
  return field.items === "entry"
    ? t("console.fieldEntry", { label: field.label, entry: index + 1 })
    : t("console.fieldLine", { label: field.label, line: index + 1 });
}

/**
 * How the page says `error` (a refusal of one of its forms, or undefined): `fields` are the form's controls;
 * `concerns` overrides which of them the error is about (a code that names no field but means one); `text`
 * overrides the message (a page that words a rule of its own).
 */
export function refusalOf(
  visit: Visit,
  error: ApiError | undefined,
  fields: FormFields,
  options: { concerns?: string[]; text?: string } = {},
): Refusal {
  if (!error) return none;
  const { t, locale } = visit;
  const paths = [...new Set([...error.fields, ...(error.params["field"] ? [error.params["field"]] : [])])];
  const meant = fieldMeant[error.code];
  const derived = meant ? [meant] : [...new Set(paths.map((path) => apiFieldPath(path).name))];
  const concerned = (options.concerns ?? derived).filter((name) => name in fields);
  // The API's params name fields by their paths: said in words before the catalogue fills them in.
  const params = { ...error.params };
  if (params["field"]) params["field"] = inWords(t, fields, params["field"]);
  if (params["fields"]) {
    const list = params["fields"]
      .split(",")
      .map((path) => path.trim())
      .filter(Boolean);
    params["fields"] = new Intl.ListFormat(locale, { type: "conjunction" }).format(
      list.map((path) => inWords(t, fields, path)),
    );
  }
  const message = options.text ?? errorText({ ...error, params }, locale, t);
  // A field's words with its index when the API pointed into it (the first path naming that field).
  const wordsOf = (name: string) => inWords(t, fields, paths.find((path) => apiFieldPath(path).name === name) ?? name);
  // "Some fields are missing or invalid: A and B" beside A is vague: each control says its own.
  const perField = error.code === "developer.invalid_request" && !options.text;
  const beside = (name: string) => (perField ? t("console.fieldInvalid", { field: wordsOf(name) }) : message);
  if (concerned.length === 0) return { at: () => undefined, general: message, problems: [{ text: message }] };
  const namesField = !perField && error.params["field"] !== undefined && concerned.length === 1;
  return {
    at: (name) => (concerned.includes(name) ? beside(name) : undefined),
    general: undefined,
    problems: concerned.map((name) => ({
      text: perField || namesField ? beside(name) : t("console.problemAt", { field: wordsOf(name), message }),
      href: `#${fields[name]!.id}`,
    })),
  };
}

/**
 * The summary at the top of <main>: role="alert", a heading, one link per problem to its control; focused on load
 * by `autofocus` (tabindex="-1" makes the box focusable, and no script is needed).
 */
export function errorSummary(t: Translate, problems: Problem[]): SafeHtml {
  return html`<div class="error-summary" id="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" autofocus>
<h2 id="error-summary-title">${t("console.errorSummaryTitle")}</h2>
<ul>${problems.map((problem) => html`<li>${problem.href ? html`<a href="${problem.href}">${problem.text}</a>` : problem.text}</li>`)}</ul></div>`;
}

/**
 * What the developer typed in the form field `name`, given back when the form was refused (`error`); undefined
 * otherwise. Never used for a password or a secret: those controls take no value.
 */
export function typed(visit: Visit, error: ApiError | undefined, name: string): string | undefined {
  return error && visit.method === "POST" ? (visit.form.get(name) ?? undefined) : undefined;
}
