// /menu?storeId=: one store's menu as a customer would see it on a partner's ordering site. A paused store shows a
// banner (why, and until when) above the menu; an item or a modifier sold out in that store is greyed and says so.
// The page reloads every three seconds and shows the copy the events keep (./menu.ts), not a new read.
import type http from "node:http";
import { escapeHtml, page } from "./html.js";
import { isAvailable, isPaused, type StoreMenu } from "./menu.js";
import { formatMoney } from "./money.js";
import type { Item, Store } from "./partner-client.js";

const styles =
  "<style>.sold-out{color:#6b6b6b;text-decoration:line-through}.sold-out .label{text-decoration:none}" +
  "#paused{border:2px solid #8a4b00;padding:0.5em;background:#fff4e0}</style>";

export function menuPage(response: http.ServerResponse, stores: Store[], menu: StoreMenu, now: Date): void {
  const { store, items } = menu;
  const paused = isPaused(store, now);
  const pause = store.onlineOrdering;
  page(response, 200, `Menu of ${store.name}`, [
    `<meta http-equiv="refresh" content="3">`,
    styles,
    `<nav><ul id="stores">${stores.map((entry) => `<li><a href="/menu?storeId=${entry.id}"${entry.id === store.id ? ' aria-current="page"' : ""}>${escapeHtml(entry.name)}</a></li>`).join("")}</ul></nav>`,
    paused
      ? `<p id="paused" role="status">${escapeHtml(store.name)} is not taking online orders now` +
        `${pause.reason ? `: ${escapeHtml(pause.reason)}` : ""}` +
        `${pause.pausedUntil ? ` (until ${escapeHtml(pause.pausedUntil)})` : ""}.</p>`
      : "",
    `<p>${items.length} items; updated from item.* and store.updated events as they arrive.</p>`,
    `<ul id="menu">${items.map((item) => itemHtml(item, now)).join("")}</ul>`,
    `<p><a href="/">Back to the start page</a></p>`,
  ]);
}

function itemHtml(item: Item, now: Date): string {
  const available = isAvailable(item, now);
  const groups = item.modifierGroups
    .map((group) => {
      const rule =
        group.minSelections > 0
          ? `choose ${group.minSelections === group.maxSelections ? group.minSelections : `${group.minSelections} to ${group.maxSelections}`}`
          : `up to ${group.maxSelections}`;
      const modifiers = group.modifiers
        .map((modifier) => {
          const selling = isAvailable(modifier, now);
          const price = modifier.priceMinor > 0 ? ` +${formatMoney(modifier.priceMinor, item.currency)}` : "";
          return `<li data-modifier-id="${modifier.id}"${selling ? "" : ' class="sold-out"'}>${escapeHtml(modifier.name)}${escapeHtml(price)}${selling ? "" : ' <span class="label">(sold out)</span>'}</li>`;
        })
        .join("");
      return `<li>${escapeHtml(group.name)} (${rule})<ul>${modifiers}</ul></li>`;
    })
    .join("");
  return (
    `<li data-item-id="${item.id}"${available ? "" : ' class="sold-out" aria-disabled="true"'}>` +
    `<span class="name">${escapeHtml(item.name)}</span>: ${escapeHtml(formatMoney(item.priceMinor, item.currency))}` +
    `${available ? "" : ' <span class="label">Sold out</span>'}` +
    `${item.description ? `<br>${escapeHtml(item.description)}` : ""}` +
    `${groups ? `<ul class="groups">${groups}</ul>` : ""}</li>`
  );
}
