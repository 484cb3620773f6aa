// What the chromium suites share: Debian's chromium launched by playwright-core with the flags every suite uses, a
// fresh context per person (its own cookies, language, colour scheme and source address), axe-core run against the
// real CSP (evaluated through the DevTools protocol, not injected as a <script>), the page checks a language needs
// (lang, dir, no English left against the catalogue) and screenshots at a phone's and a desktop's width.
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import * as assert from "uvu/assert";
import { directionOf, type Locale } from "../../src/web/i18n.js";
import { englishLeftIn, type Site } from "./catalogue-leaks.js";
import { randomAddress } from "./consent.js";
import type { TestOptions } from "./suite.js";

/**
 * Debian's chromium-headless-shell first: Blink and V8 of the same chromium build without the full browser's
 * windowing layers (what Playwright itself runs headless), about a quarter less CPU a browser file than the full
 * chromium (docs/testing.md); the binary itself, not the /usr/bin wrapper that would run it as a child of a shell.
 * The full chromium where only it is installed.
 */
const chromiumCandidates = ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium"];
export const chromiumPath = chromiumCandidates.find((path) => existsSync(path)) ?? chromiumCandidates[0]!;
export const chromiumAvailable = existsSync(chromiumPath);
/** Why a browser test is skipped on a machine without chromium, with what installs it. */
export const withoutChromium = `no chromium (${chromiumCandidates.join(" or ")}); install it with: apt-get install -y chromium-headless-shell fonts-noto-core`;
/** Generous: a machine running other suites beside this one (load 10-20) can take seconds per navigation. */
export const browserTimeout = 90_000;
/** A browser test's limit (test/support/suite.ts): many navigations, each allowed `browserTimeout`. */
export const browserTestTimeoutMs = 600_000;
/** A browser suite's options: its tests' limit, and without chromium every test reported skipped, saying why. */
export const browserSuite: TestOptions = {
  timeoutMs: browserTestTimeoutMs,
  skip: chromiumAvailable ? false : withoutChromium,
};
/** The same for one test, in a suite whose other tests need no browser (its limit stays the suite's). */
export const needsChromium: TestOptions = { skip: browserSuite.skip };
export const screenshotsRoot = new URL("../../test-output/screenshots/", import.meta.url).pathname;
/**
 * Screenshots are for people to look at, not assertions: written only when asked (`TEST_SCREENSHOTS=1`, which
 * `npm run screenshots` and the runner's `--screenshots` set). A full-page PNG at two widths is about 40% of a
 * browser file's CPU, chromium's included (docs/testing.md, "How long it takes").
 */
export const screenshotsWanted = process.env["TEST_SCREENSHOTS"] === "1";

const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: browserTimeout,
    args: [...flags, ...(process.env["CHROMIUM_EXTRA_FLAGS"]?.split(" ").filter(Boolean) ?? [])],
  });
}

let axeSource: string | undefined;

/**
 * A new person: a fresh context (no cookies) speaking `acceptLanguage`, in `colorScheme`, from a source address of
 * its own (X-Forwarded-For: the test apps trust 127.0.0.1 as a proxy), so per-address limits never join two people.
 */
export async function newPerson(
  browser: Browser,
  options: { acceptLanguage?: string; colorScheme?: "light" | "dark"; address?: string } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    locale: options.acceptLanguage ?? "en-GB",
    colorScheme: options.colorScheme ?? "light",
    viewport: { width: 1280, height: 900 },
    extraHTTPHeaders: { "x-forwarded-for": options.address ?? randomAddress() },
  });
  context.setDefaultTimeout(browserTimeout);
  context.setDefaultNavigationTimeout(browserTimeout);
  return { context, page: await context.newPage() };
}

/**
 * The id of the element focus settles on, given the one expected: `autofocus` is applied at the page's next
 * rendering update, which may come after the element is found, so the read waits (up to 5 s) for `expected` first
 * and then tells what is focused, whatever it is.
 */
export async function settledFocusId(page: Page, expected: string): Promise<string | null> {
  await page
    .waitForFunction(`document.activeElement && document.activeElement.id === ${JSON.stringify(expected)}`, null, {
      timeout: 5_000,
    })
    .catch(() => undefined);
  return page.evaluate("document.activeElement && document.activeElement.id") as Promise<string | null>;
}

/** The axe rules whose answer depends on colours: all that can change between light and dark. */
const colourRules = ["color-contrast", "link-in-text-block"];

/**
 * axe-core on the page: zero critical, serious or moderate violations (the label says which page, in which
 * language). Moderate counts too: the console once passed with twelve `landmark-unique` findings. `coloursOnly` runs
 * only the colour rules: for the same page, in the same state, already checked in the other colour scheme (dark
 * mode only sets colour custom properties, test/web/layout.test.ts, so the other rules would only give the same
 * answer again).
 */
export async function assertAccessible(
  page: Page,
  label: string,
  options: { coloursOnly?: boolean } = {},
): Promise<void> {
  // axe.min.js is half a megabyte sent through the DevTools pipe: only to a document that does not hold it yet (the
  // same page checked again, in the other colour scheme, already does).
  if ((await page.evaluate("typeof window.axe")) !== "object") {
    axeSource ??= await readFile(new URL("../../node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
    await page.evaluate(axeSource);
  }
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations']${options.coloursOnly ? `, runOnly: { type: 'rule', values: ${JSON.stringify(colourRules)} }` : ""} }).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) })))`,
  )) as Array<{ id: string; impact: string; targets: string[] }>;
  const failing = violations.filter((violation) => ["critical", "serious", "moderate"].includes(violation.impact));
  assert.equal(failing, [], `${label}: ${JSON.stringify(failing)}`);
}

const firstFont: Record<Locale, string> = { en: "system-ui", ar: '"Noto Sans Arabic"', hi: '"Noto Sans Devanagari"' };

/**
 * The page is in `locale`: lang and dir on <html>, no English piece of the site's catalogue in its visible text, and
 * the language's font stack.
 */
export async function assertInLanguage(page: Page, locale: Locale, site: Site, label: string): Promise<void> {
  assert.is(await page.getAttribute("html", "lang"), locale, `${label}: lang`);
  assert.is(await page.getAttribute("html", "dir"), directionOf(locale), `${label}: dir`);
  // <code> holds identifiers (event types such as access_request.expired, scope names), never catalogue text: left
  // out of the visible text, as visibleText does for server-rendered pages.
  const text = String(
    await page.evaluate(`(() => {
      const codes = [...document.querySelectorAll("code")];
      const shown = codes.map((code) => code.style.display);
      codes.forEach((code) => { code.style.display = "none"; });
      const text = document.body.innerText;
      codes.forEach((code, index) => { code.style.display = shown[index]; });
      return text;
    })()`),
  );
  assert.equal(englishLeftIn(text, locale, site), [], `${label}: English left on the ${locale} page`);
  // The language's own font stack first (src/web/site.css): Arabic and Devanagari fonts before system-ui.
  const family = String(await page.evaluate("getComputedStyle(document.body).fontFamily"));
  assert.ok(family.startsWith(firstFont[locale]), `${label}: font ${family}`);
}

/**
 * Resizes the page's viewport and waits until its layout has taken the new width with every style sheet and font
 * loaded (two frames after the window reports it): a size measured at once could be a layout without the site's CSS.
 * On a loaded machine a 375 px page measured 393 now and then, and 375 every time measured again.
 */
export async function setViewport(page: Page, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.waitForFunction(`window.innerWidth === ${size.width} && document.readyState === "complete"`);
  await page.evaluate("document.fonts.ready.then(() => undefined)");
  await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");
}

/**
 * Full-page screenshots at 1280 and 375 px as `<folder>/<name>-1280.png` and `-375.png`, the viewport set back;
 * nothing unless `screenshotsWanted`.
 */
export async function screenshots(page: Page, folder: string, name: string): Promise<void> {
  if (!screenshotsWanted) return;
  const directory = `${screenshotsRoot}${folder}/`;
  await mkdir(directory, { recursive: true });
  for (const width of [1280, 375]) {
    await setViewport(page, { width, height: width === 375 ? 800 : 900 });
    await page.screenshot({ path: `${directory}${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * What every browser walk checks of a page it reaches: `assertInLanguage`, then axe and the screenshots in each
 * colour scheme (light in `folder`, dark in `folder/dark`; every axe rule in the first scheme, the colour rules in
 * the second); the page is left in light. `data` names elements whose text is data rather than the site's words (an
 * error body as the app received it), hidden from the language check.
 */
export async function lookAt(
  page: Page,
  where: { locale: Locale; site: Site; folder: string; name: string },
  options: { schemes?: ReadonlyArray<"light" | "dark">; data?: string } = {},
): Promise<void> {
  const { locale, site, folder, name } = where;
  const setDataHidden = (hidden: boolean) =>
    options.data
      ? page.evaluate(
          `document.querySelectorAll(${JSON.stringify(options.data)}).forEach((element) => { element.hidden = ${hidden}; })`,
        )
      : undefined;
  await setDataHidden(true);
  await assertInLanguage(page, locale, site, `${name} (${locale})`);
  await setDataHidden(false);
  const schemes = options.schemes ?? ["light", "dark"];
  for (const [index, scheme] of schemes.entries()) {
    await page.emulateMedia({ colorScheme: scheme });
    await assertAccessible(page, `${name} (${locale}, ${scheme})`, { coloursOnly: index > 0 });
    await screenshots(page, scheme === "dark" ? `${folder}/dark` : folder, `${name}-${locale}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}
