// The static files both sites serve: the stylesheet and the copy-button script. Each is read once at start, and
// served under a URL carrying its content hash (/assets/site.<hash>.css), so a browser may keep it for a year
// without asking (Cache-Control immutable): a new stylesheet is a new URL. ETag lets a revalidation answer 304.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

interface Asset {
  path: string;
  body: Buffer;
  etag: string;
  contentType: string;
}

function load(file: string, name: string, extension: string, contentType: string): Asset {
  const body = readFileSync(new URL(`./${file}`, import.meta.url));
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 16);
  return { path: `/assets/${name}.${hash}.${extension}`, body, etag: `"${hash}"`, contentType };
}

const stylesheet = load("site.css", "site", "css", "text/css; charset=utf-8");
const copyScript = load("copy-button.js", "copy", "js", "text/javascript; charset=utf-8");
const assets = new Map([stylesheet, copyScript].map((asset) => [asset.path, asset]));

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
    "Cache-Control": "public, max-age=31536000, immutable",
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
