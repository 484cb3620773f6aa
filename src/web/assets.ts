// The static files both sites serve: the stylesheet, the copy-button script and the fonts of the scripts a machine
// may lack. Each is read once at start, and served under a URL carrying its content hash
// (/assets/site.<hash>.css), so a browser may keep it for a year without asking (Cache-Control immutable): a new
// stylesheet is a new URL. ETag lets a revalidation answer 304.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface Asset {
  path: string;
  body: Buffer;
  etag: string;
  contentType: string;
  /** Absent: a year, immutable (the URL carries the hash). */
  cacheControl?: string;
}

function asset(body: Buffer, name: string, extension: string, contentType: string): Asset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return { path: `/assets/${name}.${hash}.${extension}`, body, etag: `"${hash}"`, contentType };
}

const load = (file: string, name: string, extension: string, contentType: string) =>
  asset(readFileSync(new URL(`./${file}`, import.meta.url)), name, extension, contentType);

/**
 * Arabic and Devanagari in Noto Sans (SIL Open Font License 1.1, from the @fontsource packages): the script's own
 * subset, regular and bold (the stylesheet's 600 resolves to bold), about 50 KB each. The @font-face rules name the
 * families the stylesheet's stacks already lead with, `local()` first: a machine that has the font uses its own, one
 * that has none (no fonts-noto-core: Hindi showed as boxes) downloads ours, and only when a page holds that script
 * (unicode-range).
 */
const scriptFonts = [
  {
    family: "Noto Sans Arabic",
    file: (weight: number) => `@fontsource/noto-sans-arabic/files/noto-sans-arabic-arabic-${weight}-normal.woff2`,
    range:
      "U+0600-06FF,U+0750-077F,U+0870-088E,U+0890-0891,U+0897-08E1,U+08E3-08FF,U+200C-200E,U+2010-2011,U+204F,U+2E41,U+FB50-FDFF,U+FE70-FE74,U+FE76-FEFC,U+102E0-102FB,U+10E60-10E7E,U+10EC2-10EC4,U+10EFC-10EFF,U+1EE00-1EE03,U+1EE05-1EE1F,U+1EE21-1EE22,U+1EE24,U+1EE27,U+1EE29-1EE32,U+1EE34-1EE37,U+1EE39,U+1EE3B,U+1EE42,U+1EE47,U+1EE49,U+1EE4B,U+1EE4D-1EE4F,U+1EE51-1EE52,U+1EE54,U+1EE57,U+1EE59,U+1EE5B,U+1EE5D,U+1EE5F,U+1EE61-1EE62,U+1EE64,U+1EE67-1EE6A,U+1EE6C-1EE72,U+1EE74-1EE77,U+1EE79-1EE7C,U+1EE7E,U+1EE80-1EE89,U+1EE8B-1EE9B,U+1EEA1-1EEA3,U+1EEA5-1EEA9,U+1EEAB-1EEBB,U+1EEF0-1EEF1",
  },
  {
    family: "Noto Sans Devanagari",
    file: (weight: number) =>
      `@fontsource/noto-sans-devanagari/files/noto-sans-devanagari-devanagari-${weight}-normal.woff2`,
    range: "U+0900-097F,U+1CD0-1CF9,U+200C-200D,U+20A8,U+20B9,U+20F0,U+25CC,U+A830-A839,U+A8E0-A8FF,U+11B00-11B09",
  },
] as const;
const fontWeights = [400, 700] as const;

const fonts = scriptFonts.flatMap((font) =>
  fontWeights.map((weight) => {
    const name = `${font.family.toLowerCase().replace(/ /g, "-")}-${weight}`;
    const body = readFileSync(fileURLToPath(import.meta.resolve(font.file(weight))));
    const file = asset(body, name, "woff2", "font/woff2");
    const style = weight === 700 ? "Bold" : "Regular";
    const local = `local("${font.family}${weight === 700 ? " Bold" : ""}"), local("${font.family.replace(/ /g, "")}-${style}")`;
    return {
      file,
      face: `@font-face { font-family: "${font.family}"; font-style: normal; font-weight: ${weight}; font-display: swap; src: ${local}, url(${file.path}) format("woff2"); unicode-range: ${font.range}; }`,
    };
  }),
);

const stylesheet = asset(
  Buffer.concat([
    Buffer.from(
      `/* The fonts of scripts a machine may lack: src/web/assets.ts. */\n${fonts.map((font) => font.face).join("\n")}\n\n`,
    ),
    readFileSync(new URL("./site.css", import.meta.url)),
  ]),
  "site",
  "css",
  "text/css; charset=utf-8",
);
const copyScript = load("copy-button.js", "copy", "js", "text/javascript; charset=utf-8");
/**
 * The sites' icon where browsers ask for it without a <link> (/favicon.ico answered 404 on both sites, issue 42): an
 * SVG, which browsers take at that path. Its URL is fixed, so it is cached a day rather than for good.
 */
const favicon: Asset = {
  ...load("favicon.svg", "favicon", "svg", "image/svg+xml"),
  path: "/favicon.ico",
  cacheControl: "public, max-age=86400",
};
const assets = new Map(
  [stylesheet, copyScript, favicon, ...fonts.map((font) => font.file)].map((item) => [item.path, item]),
);

/** The hashed URLs of the shipped fonts. */
export const fontPaths: readonly string[] = fonts.map((font) => font.file.path);

/** The hashed URL of the stylesheet, for the page shell's <link>. */
export const stylesheetPath = stylesheet.path;
/** The hashed URL of the copy-button script, for pages that show a secret. */
export const copyScriptPath = copyScript.path;

export interface AssetReply {
  status: 200 | 304 | 405;
  headers: Record<string, string>;
  body: Buffer | string;
}

/**
 * The answer for an /assets/ path, or undefined when the path is not one of ours (the site's own 404 then).
 * GET and HEAD only; If-None-Match with our ETag answers 304.
 */
export function assetReply(method: string, path: string, ifNoneMatch: string | undefined): AssetReply | undefined {
  const asset = assets.get(path);
  if (!asset) return undefined;
  if (method !== "GET" && method !== "HEAD")
    return {
      status: 405,
      headers: { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" },
      body: "method not allowed\n",
    };
  const headers = {
    "Content-Type": asset.contentType,
    "Cache-Control": asset.cacheControl ?? "public, max-age=31536000, immutable",
    ETag: asset.etag,
    "X-Content-Type-Options": "nosniff",
  };
  const matches = (ifNoneMatch ?? "")
    .split(",")
    .some((tag) => tag.trim() === asset.etag || tag.trim() === `W/${asset.etag}` || tag.trim() === "*");
  if (matches) return { status: 304, headers, body: "" };
  return {
    status: 200,
    headers: { ...headers, "Content-Length": String(asset.body.length) },
    body: method === "HEAD" ? "" : asset.body,
  };
}
