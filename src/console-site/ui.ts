// The console's form controls, built on the web kit: every control has a visible label (its accessible name), an
// error beside it when the API refused that field (aria-invalid + aria-describedby), and hints where rules bite.
import { html, raw, type HtmlValue, type SafeHtml } from "../web/html.js";
import { hiddenFields } from "../web/layout.js";

export interface FieldOptions {
  label: string;
  name: string;
  type?: "text" | "email" | "password" | "url" | "number" | "datetime-local";
  value?: string;
  hint?: string;
  error?: string;
  autocomplete?: string;
  required?: boolean;
  /** Identifiers, URLs and secrets read left to right on an Arabic page too. */
  ltr?: boolean;
  /** The control's id when a page has several fields of one name (default `field-<name>`). */
  id?: string;
}

/** A labelled input, its hint and its error (when the API named this field). */
export function field(options: FieldOptions): SafeHtml {
  const id = options.id ?? `field-${options.name}`;
  const described = [options.hint ? `${id}-hint` : "", options.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return html`<div class="field"><label for="${id}">${options.label}</label>
<input id="${id}" name="${options.name}" type="${options.type ?? "text"}"${options.value !== undefined ? html` value="${options.value}"` : ""}${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ""}${options.required ? raw(" required") : ""}${options.error ? raw(' aria-invalid="true"') : ""}${described ? html` aria-describedby="${described}"` : ""}${options.ltr ? raw(' dir="ltr"') : ""}>
${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ""}${options.error ? html`<p class="field-error" id="${id}-error">${options.error}</p>` : ""}</div>`;
}

/** A labelled multi-line input (one value a line). */
export function textarea(options: FieldOptions): SafeHtml {
  const id = options.id ?? `field-${options.name}`;
  const described = [options.hint ? `${id}-hint` : "", options.error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return html`<div class="field"><label for="${id}">${options.label}</label>
<textarea id="${id}" name="${options.name}"${options.error ? raw(' aria-invalid="true"') : ""}${described ? html` aria-describedby="${described}"` : ""}${options.ltr ? raw(' dir="ltr"') : ""}>${options.value ?? ""}</textarea>
${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ""}${options.error ? html`<p class="field-error" id="${id}-error">${options.error}</p>` : ""}</div>`;
}

/** A POST form to our own path, carrying the CSRF token. */
export function postForm(
  action: string,
  csrf: string,
  body: HtmlValue,
  options: { className?: string; hidden?: Record<string, string | undefined>; label?: string } = {},
): SafeHtml {
  return html`<form method="post" action="${action}"${options.className ? html` class="${options.className}"` : ""}${options.label ? html` aria-label="${options.label}"` : ""}>${hiddenFields({ csrf, ...options.hidden })}${body}</form>`;
}

export function button(
  label: string,
  options: { kind?: "primary" | "secondary" | "danger"; name?: string; value?: string; ariaLabel?: string } = {},
): SafeHtml {
  const className = options.kind && options.kind !== "primary" ? options.kind : "";
  return html`<button type="submit"${className ? html` class="${className}"` : ""}${options.name ? html` name="${options.name}" value="${options.value ?? ""}"` : ""}${options.ariaLabel ? html` aria-label="${options.ariaLabel}"` : ""}>${label}</button>`;
}

/** An alert: role=alert for errors (read out at once), status for confirmations. */
export function alert(kind: "error" | "ok" | "info", content: HtmlValue): SafeHtml {
  return html`<div class="alert ${kind}" role="${kind === "error" ? "alert" : "status"}">${content}</div>`;
}

/**
 * A value shown once (a secret, a password): selectable text, and a copy button that the script reveals (no
 * script: no dead button). The label names what is copied.
 */
export function secretBox(options: {
  id: string;
  label: string;
  value: string;
  copy: string;
  copied: string;
}): SafeHtml {
  return html`<div class="field"><p class="label" id="${options.id}-label">${options.label}</p>
<div class="secret-box"><code id="${options.id}">${options.value}</code>
<button type="button" class="secondary" data-copy-target="${options.id}" data-copied-label="${options.copied}" aria-label="${options.copy}: ${options.label}" hidden>${options.copy}</button></div></div>`;
}
