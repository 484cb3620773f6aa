// The example's pages: text escaped for HTML, and one page shape (a title and its parts).
import type http from "node:http";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export function page(response: http.ServerResponse, status: number, title: string, body: string[]): void {
  response.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  response.end(
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title><main><h1>${escapeHtml(title)}</h1>${body.join("")}</main></html>`,
  );
}
