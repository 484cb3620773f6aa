// What bench:chaos prints per fault, from the load's answers (bench/support/chaos-load.ts), the orders the region's
// database holds after the run and the deliveries the receiver saw: the seconds until writes succeed again, the
// answers by status and code in that window, acknowledged writes missing, writes stored twice, webhook events
// expected / delivered / duplicated webhook-ids, and the p99 of every call before, during and after.
import { loadavg } from "node:os";
import { writeKinds, type CallRecord, type LostRotation } from "./chaos-load.js";

/** One fault's times (performance.now()). */
export interface Phase {
  name: string;
  /** When its "before" period began. */
  startMs: number;
  /** The fault. */
  faultMs: number;
  /** When the fault was over: the heal, the last restart done; the fault itself for a kill. */
  clearedMs: number;
  endMs: number;
  /** What happened, in a few words (which node took over, and when). */
  note: string;
  /** The 1-minute load average when the fault began. */
  load: number;
}

/** A stored order: its id, and how many rows carry its external reference. */
export interface StoredOrders {
  byReference: Map<string, { ids: string[] }>;
}

/** A `webhook received` line of the receiver host. */
export interface Arrival {
  webhookId: string;
  type: string | undefined;
  verified: boolean;
  orderId: string | undefined;
}

export interface Row {
  name: string;
  writesBackSeconds: number | undefined;
  window: string;
  acknowledged: number;
  missing: number;
  duplicated: number;
  expectedEvents: number;
  deliveredEvents: number;
  duplicatedIds: number;
  p99: [number | undefined, number | undefined, number | undefined];
  note: string;
  load: number;
}

function p99(records: readonly CallRecord[]): number | undefined {
  if (records.length === 0) return undefined;
  const sorted = records.map((record) => record.endedMs - record.startedMs).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

/** "200: 812, 503 server.database_unavailable: 37", largest first. */
export function tally(records: readonly CallRecord[]): string {
  const counts = new Map<string, number>();
  for (const record of records) {
    const key = record.ok ? String(record.status) : `${record.status} ${record.code ?? ""}`.trim();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key}: ${count}`)
    .join(", ");
}

/**
 * When writes succeed again: per kind of write, the end of its first success started after the fault and after the
 * kind's last failed call; the latest of the kinds (a partition stops orders while rotations go on). Undefined when
 * a kind had none within the phase.
 */
export function writesBackAt(phase: Phase, records: readonly CallRecord[]): number | undefined {
  const backs = writeKinds.map((kind) => {
    const writes = records.filter(
      (record) => record.kind === kind && record.endedMs >= phase.faultMs && record.startedMs < phase.endMs,
    );
    const lastFailure = Math.max(
      phase.faultMs,
      ...writes.filter((record) => !record.ok).map((record) => record.startedMs),
    );
    const back = writes.filter((record) => record.ok && record.startedMs > lastFailure).map((r) => r.endedMs);
    return back.length > 0 ? Math.min(...back) : undefined;
  });
  return backs.some((back) => back === undefined) ? undefined : Math.max(...(backs as number[]));
}

/** The row of one phase. */
export function rowOf(
  phase: Phase,
  records: readonly CallRecord[],
  lost: readonly LostRotation[],
  stored: StoredOrders,
  arrivals: readonly Arrival[],
): Row {
  const inPhase = (record: CallRecord) => record.startedMs >= phase.startMs && record.startedMs < phase.endMs;
  const ours = records.filter(inPhase);
  const back = writesBackAt(phase, records);
  const windowEnd = Math.max(back ?? phase.endMs, phase.clearedMs);
  const window = ours.filter((record) => record.endedMs >= phase.faultMs && record.startedMs <= windowEnd);
  const orders = ours.filter((record) => record.kind === "order");
  const acknowledgedOrders = orders.filter((record) => record.ok);
  const missingOrders = acknowledgedOrders.filter((record) => !stored.byReference.get(record.value!)?.ids.length);
  const missingRotations = lost.filter((rotation) => inPhase(rotation.acknowledged));
  const storedIds = new Set(orders.flatMap((record) => stored.byReference.get(record.value!)?.ids ?? []));
  const duplicated = orders.filter((record) => (stored.byReference.get(record.value!)?.ids.length ?? 0) > 1);
  const deliveries = arrivals.filter(
    (arrival) => arrival.type === "online_order.created" && arrival.verified && storedIds.has(arrival.orderId ?? ""),
  );
  const perId = new Map<string, number>();
  for (const arrival of deliveries) perId.set(arrival.webhookId, (perId.get(arrival.webhookId) ?? 0) + 1);
  return {
    name: phase.name,
    writesBackSeconds: back === undefined ? undefined : (back - phase.faultMs) / 1000,
    window: tally(window),
    acknowledged: acknowledgedOrders.length + ours.filter((record) => record.kind === "refresh" && record.ok).length,
    missing: missingOrders.length + missingRotations.length,
    duplicated: duplicated.length,
    expectedEvents: storedIds.size,
    deliveredEvents: new Set(deliveries.map((arrival) => arrival.orderId)).size,
    duplicatedIds: [...perId.values()].filter((count) => count > 1).length,
    p99: [
      p99(ours.filter((record) => record.endedMs < phase.faultMs)),
      p99(window),
      p99(ours.filter((record) => record.startedMs > windowEnd)),
    ],
    note: phase.note,
    load: phase.load,
  };
}

const ms = (value: number | undefined) => (value === undefined ? "–" : value.toFixed(0));

/** The table, in Markdown (docs/benchmarks.md takes it as printed). */
export function table(rows: readonly Row[]): string {
  const lines = [
    "| fault | writes succeed again after | answers from the fault until then | acknowledged writes | missing | duplicated | webhook events expected / delivered / duplicated ids | p99 before / during / after (ms) | load avg | what happened |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const row of rows) {
    const back = row.writesBackSeconds === undefined ? "not within the run" : `${row.writesBackSeconds.toFixed(1)} s`;
    const events = `${row.expectedEvents} / ${row.deliveredEvents} / ${row.duplicatedIds}`;
    lines.push(
      `| ${row.name} | ${back} | ${row.window} | ${row.acknowledged} | ${row.missing} | ${row.duplicated} | ${events} | ${row.p99.map(ms).join(" / ")} | ${row.load.toFixed(2)} | ${row.note} |`,
    );
  }
  return lines.join("\n");
}

export const loadAverage = () => loadavg()[0]!;
