// The steady mixed load of bench:chaos, through the balancers as a partner's traffic: item reads (GET /v1/items),
// token mints (POST /v1/token with the FULL app's sandbox pair; each new token serves the reads after it), refresh
// rotations and order placements (test/support/inflight-writes.ts's calls, `spend`). `lanes` lanes of each kind,
// one call after another with `pauseMs` between. Every answer is kept with its times.
//
// Refreshes run as chains, as a partner's client does: a success's new refresh token is the next call's; after an
// answer that says nothing (503, 502 from the balancer, no answer) the same token is presented again (the refresh
// grace window answers a replay of a rotated token with the same successor); a 400 ends the chain, and when the
// token it refused came from a success, that acknowledged rotation is counted missing. Each chain's last token is
// presented once more at the end, so every acknowledged rotation is checked by the answer to its successor's use.
import { randomBytes } from "node:crypto";
import { spend, succeeded, type Ticket, type WriteAnswer, type Writer } from "../../test/support/inflight-writes.js";

export type CallKind = "items" | "mint" | "refresh" | "order";
export const callKinds: readonly CallKind[] = ["items", "mint", "refresh", "order"];
/** The kinds that write (what "writes succeed again" is measured on). */
export const writeKinds: readonly CallKind[] = ["refresh", "order"];

export interface CallRecord {
  kind: CallKind;
  startedMs: number;
  endedMs: number;
  status: number | "no answer";
  /** The error's code (JSON `code`, or the balancer's plain text) when not a success. */
  code: string | undefined;
  ok: boolean;
  /** order: its external reference; refresh: the token presented. */
  value?: string;
  /** order: the order id; refresh: the new refresh token. */
  result?: string;
}

/** An acknowledged refresh rotation whose new token was later refused. */
export interface LostRotation {
  acknowledged: CallRecord;
  refusal: CallRecord;
}

export interface LoadOptions {
  api: string;
  lanes: number;
  pauseMs: number;
  callTimeoutMs: number;
}

export interface Load {
  records: CallRecord[];
  lost: LostRotation[];
  /** Stops every lane (after its call in progress), then presents each chain's last token once more. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The code of an error body: JSON `code` (OAuth's `error`, the mint's `error.code`), else the start of plain text. */
function codeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; error?: unknown };
    if (typeof parsed.code === "string") return parsed.code;
    if (typeof parsed.error === "string") return parsed.error;
    // The sandbox mint's envelope: {"error": {"code": ...}}.
    const nested = (parsed.error as { code?: unknown } | null | undefined)?.code;
    if (typeof nested === "string") return nested;
  } catch {
    // plain text: the balancer's own answers
  }
  // The balancer's "upstream failed: connect ECONNREFUSED 10.77.…": the kind, not the addresses.
  const text = body.trim().split("\n")[0] ?? "";
  return text.replace(/\s*\d+\.\d+\.\d+\.\d+(:\d+)?/g, "").slice(0, 48) || undefined;
}

/** One fetch bounded by `timeoutMs`, as a record. */
async function timedCall(kind: CallKind, url: string, init: RequestInit, timeoutMs: number) {
  const startedMs = performance.now();
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const body = await response.text();
    const ok = response.status === 200;
    const record: CallRecord = {
      kind,
      startedMs,
      endedMs: performance.now(),
      status: response.status,
      code: ok ? undefined : codeOf(body),
      ok,
    };
    return { record, body };
  } catch (error) {
    const code = error instanceof Error ? error.name : "error";
    const record: CallRecord = { kind, startedMs, endedMs: performance.now(), status: "no answer", code, ok: false };
    return { record, body: "" };
  }
}

function recordOf(answer: WriteAnswer): CallRecord {
  const ok = succeeded(answer);
  return {
    kind: answer.ticket.kind === "order" ? "order" : "refresh",
    startedMs: answer.startedMs,
    endedMs: answer.endedMs,
    status: answer.status,
    code: ok ? undefined : (answer.code ?? (answer.status === "no answer" ? "timeout" : codeOf(answer.body))),
    ok,
    value: answer.ticket.value,
    ...(answer.result === undefined ? {} : { result: answer.result }),
  };
}

/** Starts the load: `writer` (its FULL app's sandbox pair and its shop) and refresh `families` to start chains on. */
export function startLoad(
  writer: Writer,
  full: { clientId: string; clientSecret: string; companyId: number },
  families: Ticket[],
  options: LoadOptions,
): Load {
  const records: CallRecord[] = [];
  const lost: LostRotation[] = [];
  let running = true;
  let itemsToken = "";
  const { api, callTimeoutMs } = options;
  const mint = async () => {
    const { record, body } = await timedCall(
      "mint",
      `${api}/v1/token`,
      {
        method: "POST",
        body: new URLSearchParams({
          client_id: full.clientId,
          client_secret: full.clientSecret,
          merchant_id: String(full.companyId),
        }),
      },
      callTimeoutMs,
    );
    if (record.ok) itemsToken = (JSON.parse(body) as { access_token: string }).access_token;
    return record;
  };
  const read = async () =>
    (
      await timedCall(
        "items",
        `${api}/v1/items?limit=10`,
        { headers: { authorization: `Bearer ${itemsToken}` } },
        callTimeoutMs,
      )
    ).record;
  let orders = 0;
  const order = async () => {
    const reference = `chaos-${process.pid}-${++orders}-${randomBytes(2).toString("hex")}`;
    return recordOf(await spend(writer, { kind: "order", value: reference }, callTimeoutMs));
  };
  const loop = async (call: () => Promise<CallRecord>) => {
    while (running) {
      records.push(await call());
      await sleep(options.pauseMs);
    }
  };
  const chains = Array.from({ length: options.lanes }, () => refreshChain(writer, families, lost, options));
  const lanes = [
    // The reads need a token: the first mint before any read.
    mint().then((record) => {
      records.push(record);
      return Promise.all([
        ...Array.from({ length: options.lanes }, () => loop(read)),
        loop(mint),
        ...Array.from({ length: options.lanes }, () => loop(order)),
      ]);
    }),
    ...chains.map((chain) => loop(chain.next)),
  ];
  return {
    records,
    lost,
    async stop() {
      running = false;
      await Promise.all(lanes);
      for (const chain of chains) await chain.last();
    },
  };
}

/** One refresh chain: `next` presents the current token; `last` checks the final one. */
function refreshChain(writer: Writer, families: Ticket[], lost: LostRotation[], options: LoadOptions) {
  let current = families.shift();
  let acknowledgedBy: CallRecord | undefined;
  const present = async (): Promise<CallRecord> => {
    if (!current) throw new Error("bench:chaos: the refresh families ran out (raise CHAOS_REFRESH_FAMILIES)");
    const record = recordOf(await spend(writer, current, options.callTimeoutMs));
    if (record.ok) {
      current = { kind: "refresh", value: record.result! };
      acknowledgedBy = record;
    } else if (record.status === 400) {
      if (acknowledgedBy) lost.push({ acknowledged: acknowledgedBy, refusal: record });
      current = families.shift();
      acknowledgedBy = undefined;
    }
    return record;
  };
  return {
    next: present,
    async last() {
      if (!acknowledgedBy) return;
      // After the faults: a final answer that says nothing is asked again, a few times.
      for (let attempt = 0; attempt < 5; attempt++) {
        const record = await present();
        if (record.ok || record.status === 400) return;
        await sleep(1000);
      }
    },
  };
}
