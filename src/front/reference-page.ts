// The human-readable reference of /v1: Swagger UI (swagger-ui-dist, a maintained renderer) rendering
// GET /v1/openapi.json, served by the front itself so it works without internet access. The page, its start script
// and the renderer's assets are read once at start; the assets' paths carry the renderer's version, so they are
// cached for a year (a new version is a new path), the page and start script for five minutes like the document.
// Every URL is relative to /v1/ ("openapi.json", "reference/..."): the page works behind a proxy that mounts the API
// under a path prefix. No inline script or style: the CSP allows only this origin.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The page's path; its files live under it. */
export const referencePath = "/v1/reference";

export interface ReferenceFile {
  body: Buffer;
  headers: Record<string, string>;
}

/** Each file the reference answers, by its path. */
export type ReferenceFiles = ReadonlyMap<string, ReferenceFile>;

/** The renderer's files the page loads, and their types. The bundle includes the API layout (no standalone preset). */
const rendererFiles: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/**
 * Scripts and styles from this origin only; `data:` images are the renderer's icons inlined in its CSS; connect-src
 * 'self' lets it fetch the document and send "Try it out" calls to this front, nowhere else.
 */
export const referenceContentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const shortCache = "public, max-age=300";
const immutable = "public, max-age=31536000, immutable";

function page(assets: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Partner API reference</title>
<link rel="stylesheet" href="${assets}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assets}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui" data-document="openapi.json"></div>
<script src="${assets}/swagger-ui-bundle.js"></script>
<script src="reference/start.js"></script>
</body>
</html>
`;
}

// validatorUrl null: the renderer would otherwise send the document to validator.swagger.io for a badge.
const startScript = `"use strict";
window.addEventListener("DOMContentLoaded", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.getAttribute("data-document"),
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout"
  });
});
`;

/** Reads the renderer's files once; the front answers each path in the returned map. */
export async function loadReferenceFiles(): Promise<ReferenceFiles> {
  const require = createRequire(import.meta.url);
  const rendererFolder = dirname(require.resolve("swagger-ui-dist/package.json"));
  const { version } = JSON.parse(await readFile(join(rendererFolder, "package.json"), "utf8")) as { version: string };
  // Relative to the page (/v1/reference): /v1/reference/swagger-ui-<version>/...
  const assets = `reference/swagger-ui-${version}`;
  const files = new Map<string, ReferenceFile>();
  const pageHeaders = {
    "Content-Security-Policy": referenceContentSecurityPolicy,
    "X-Content-Type-Options": "nosniff",
  };
  files.set(referencePath, {
    body: Buffer.from(page(assets)),
    headers: {
      ...pageHeaders,
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": shortCache,
      "Referrer-Policy": "no-referrer",
    },
  });
  files.set(`${referencePath}/start.js`, {
    body: Buffer.from(startScript),
    headers: { ...pageHeaders, "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": shortCache },
  });
  for (const [name, contentType] of Object.entries(rendererFiles)) {
    files.set(`/v1/${assets}/${name}`, {
      body: await readFile(join(rendererFolder, name)),
      headers: { ...pageHeaders, "Content-Type": contentType, "Cache-Control": immutable },
    });
  }
  return files;
}
