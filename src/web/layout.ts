// The page shell both sites share: doctype, lang and dir, title, the hashed stylesheet, a skip link, the header
// with the platform's mark and name, the language switch, and one main landmark. Also the security headers every
// page carries, with a CSP that allows no inline script and no framing.
import { copyScriptPath, stylesheetPath } from "./assets.js";
import { html, raw, type HtmlValue, type SafeHtml } from "./html.js";
import { directionOf, supportedLocales, translator, withLanguage, type Locale } from "./i18n.js";

/**
 * The platform's mark: a small inline SVG (an image, not script; the CSP's default-src does not govern inline
 * SVG markup). aria-hidden: the name next to it is the accessible text.
 */
const mark = raw(
  '<svg viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" fill="#1f4fd1"/>' +
    '<path d="M9 8v16h8" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/>' +
    '<path d="M17 8h3.5a4.5 4.5 0 0 1 0 9H17v7" fill="none" stroke="#9fe0b7" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>',
);

export interface ShellOptions {
  locale: Locale;
  /** The page's title: the <title> (with the brand) and the page's one <h1>. */
  title: string;
  /** A <title> that says more than the <h1> (which section of the page), when the page has sections. */
  documentTitle?: string;
  /** Which site: its name follows the brand in the header ("Developer console"). */
  section?: string;
  /** Where the brand links (the site's home). */
  homePath?: string;
  /** The current path and query, for the language switch (drop one-time tokens from it first). */
  path: string;
  query?: URLSearchParams;
  /** Navigation links of the site (signed in), and which one is current. */
  nav?: { href: string; label: string; current?: boolean }[];
  /** Extra header content (a sign-out form). */
  headerEnd?: SafeHtml;
  /** A narrow column (sign-in forms). */
  narrow?: boolean;
  /** Load the copy-button script (pages that show a secret once). */
  copyScript?: boolean;
  body: HtmlValue;
}

/** The full HTML document of a page. */
export function page(options: ShellOptions): string {
  const t = translator(options.locale);
  const query = options.query ?? new URLSearchParams();
  const languages = supportedLocales.map((locale) => {
    const name = translator(locale)("common.languageName");
    const current = locale === options.locale;
    // Each language's name in its own language and script, marked as such for screen readers (lang, hreflang).
    return html`<li><a href="${withLanguage(options.path, query, locale)}" lang="${locale}" hreflang="${locale}"${current ? raw(' aria-current="true"') : ""}>${name}</a></li>`;
  });
  const nav =
    options.nav && options.nav.length > 0
      ? html`<nav class="site-nav" aria-label="${t("common.siteNavigation")}"><ul>${options.nav.map(
          (item) =>
            html`<li><a href="${item.href}"${item.current ? raw(' aria-current="page"') : ""}>${item.label}</a></li>`,
        )}</ul></nav>`
      : "";
  const document = html`<!doctype html>
<html lang="${options.locale}" dir="${directionOf(options.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${options.documentTitle ?? options.title} · ${t("common.brand")}</title>
<link rel="stylesheet" href="${stylesheetPath}">
${options.copyScript ? html`<script src="${copyScriptPath}" defer></script>` : ""}
</head>
<body>
<a class="skip-link" href="#main">${t("common.skipToContent")}</a>
<header class="site-header">
<div class="site-header-inner">
<a class="brand" href="${options.homePath ?? "/"}">${mark}<span>${t("common.brand")}</span>${options.section ? html`<span class="brand-section">${options.section}</span>` : ""}</a>
<nav class="lang-switch" aria-label="${t("common.language")}"><ul>${languages}</ul></nav>
${options.headerEnd ?? ""}
</div>
${nav}
</header>
<main id="main" class="site-main${options.narrow ? " narrow" : ""}" tabindex="-1">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>
`;
  return document.toString();
}

/** A form's hidden fields (the CSRF token, carried parameters); undefined values are left out. */
export function hiddenFields(fields: Record<string, string | undefined>): SafeHtml {
  return html`${Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}`;
}

/**
 * The Content-Security-Policy of a page: only our own files (the stylesheet, the copy-button script), no inline
 * script or style, forms to ourselves (plus `formTargets`: Chromium applies form-action to the redirect that
 * follows a form), never framed, no <base>.
 */
export function contentSecurityPolicy(formTargets: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    `form-action ${["'self'", ...formTargets].join(" ")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

/** Headers on every page: the CSP, no framing (old browsers: X-Frame-Options), no sniffing, no cross-site referrer. */
export function pageHeaders(options: { secure: boolean; formTargets?: string[] }): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(options.formTargets),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on our own form posts, and the
    // origin check needs the real one.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    // Behind https, browsers keep to https for a year (RFC 6797); not includeSubDomains (other hosts are not ours).
    ...(options.secure ? { "Strict-Transport-Security": "max-age=31536000" } : {}),
  };
}
