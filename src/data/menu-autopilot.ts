// The automatic sandbox merchant's menu (issue 39): with SANDBOX_MENU_AUTOPILOT_SECONDS set, each store whose turn
// has come (stores.menu_autopilot_at, set at seeding for a sandbox merchant's second store) is paused, or resumed
// when paused, through the catalogue change the sandbox helper's pause makes (one stamp, the write and the same
// store.updated event), and its next turn is set that many seconds on. Claim and write are one
// transaction with SKIP LOCKED: instances sweeping the same region turn a store once.
import type { SqlClient } from "../storage/sql-client.js";
import { regionTable } from "./queries/region-tables.js";
import type { OnlineOrderingSetting, StoreRow } from "./queries/store-queries.js";
import { changeWithin } from "./catalogue-changes.js";
import { storeEvent } from "./catalogue-events.js";
import { isPausedAt, storeOf } from "./stores.js";

/** The reason the autopilot gives its pauses: a partner reading the store sees who paused it. */
export const menuAutopilotReason = "Sandbox autopilot";
/** Stores turned per sweep at most; the next tick goes on. */
const batchSize = 100;

type Begin = { begin: <T>(run: (tx: SqlClient) => Promise<T>) => Promise<T> };

/** Turns every store whose turn has come at `now`; resolves with how many it turned. */
export function turnDueStores(sql: SqlClient, schema: string, seconds: number, now: Date): Promise<number> {
  return (sql as Begin).begin(async (tx) => {
    const stores = regionTable(tx, schema, "stores");
    const due = await tx<
      Array<Pick<StoreRow, "id" | "online_ordering_status" | "paused_until"> & { company_id: number }>
    >`
      update ${stores} set menu_autopilot_at = ${new Date(now.getTime() + seconds * 1000)}
      where id in (
        select id from ${stores} where menu_autopilot_at <= ${now}
        order by menu_autopilot_at limit ${batchSize} for update skip locked)
      returning id, company_id, online_ordering_status, paused_until`;
    for (const store of due) {
      const setting: OnlineOrderingSetting = isPausedAt(store, now)
        ? { status: "ACCEPTING" }
        : { status: "PAUSED", pausedUntil: null, reason: menuAutopilotReason };
      const companyId = Number(store.company_id);
      // One catalogue change each, as the sandbox helper's pause: its stamp, the write and its store.updated event.
      await changeWithin(tx, schema, companyId, now, async (writer, stamp) => {
        const row = await writer.stores.setOnlineOrdering(companyId, Number(store.id), setting, stamp);
        if (!row) return { result: undefined, events: [] };
        return { result: undefined, events: [storeEvent(storeOf(row, now))] };
      });
    }
    return due.length;
  });
}
