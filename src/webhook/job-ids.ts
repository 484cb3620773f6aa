// Delivery job ids that sort as they were made (issue 43). pg-boss fetches due jobs created first, but when one fetch
// takes more jobs of one endpoint than the endpoint has room for, it keeps the ones first by id
// (`ROW_NUMBER() OVER (PARTITION BY group_id ORDER BY id)`), and its own ids are random: an older attempt could lose
// its place to a newer one of the same endpoint, fetch after fetch. Ours are laid out as UUID version 7 (RFC 9562
// §5.7): 48 bits of Unix milliseconds, then a 12-bit counter within the millisecond (§6.2, method 1), then 62
// random bits, so that ids compare (PostgreSQL's uuid order is byte order) as they were made in this process.
import { randomBytes } from "node:crypto";
import type { Clock } from "../runtime/clock.js";

/** Makes ids from `clock`: each after the previous one, even when the clock stands still or steps back. */
export function timeOrderedIds(clock: Pick<Clock, "now">): () => string {
  let lastMs = 0;
  let counter = 0;
  return () => {
    const ms = Math.floor(clock.now());
    if (ms > lastMs) {
      lastMs = ms;
      counter = 0;
    } else if (++counter > 0xfff) {
      // 4,096 ids in one millisecond: borrow the next one (the ids keep their order; the stamp runs ahead a little).
      lastMs++;
      counter = 0;
    }
    const bytes = randomBytes(16);
    bytes.writeUIntBE(lastMs, 0, 6);
    bytes[6] = 0x70 | (counter >> 8);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = bytes.toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}
