// Lanes of in-flight writes through a fault (test/support/inflight-writes.ts's tickets), and what their answers
// came to: shared by the PostgreSQL failover test and bench:chaos. Each kind runs `lanes` lanes, one call after
// another with a short pause, from before the fault until each lane has succeeded once after recovery (or its
// tickets or the time run out); burst() starts the calls kept back for it, two per kind at once, for calls on their
// way at the fault whatever the lanes have left (on a quick machine the lanes may spend theirs before it).
import {
  spend,
  succeeded,
  visibleAfter,
  writeKinds,
  type Ticket,
  type WriteAnswer,
  type WriteKind,
  type Writer,
} from "./inflight-writes.js";

export interface FaultClock {
  /** performance.now() of the fault; +Infinity before it. */
  killedMs(): number;
  /** Whether the service can be expected to accept writes again (a new primary is known). */
  recovered(): boolean;
}

export interface InflightRun {
  answers: WriteAnswer[];
  start(clock: FaultClock): Promise<void>;
  burst(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Tickets of each kind kept back from the lanes for burst(). */
const burstPerKind = 2;

export function inflightRun(
  writer: Writer,
  tickets: Map<WriteKind, Ticket[]>,
  options: { lanes: number; pauseMs: number; callTimeoutMs: number; limitMs: number },
): InflightRun {
  const answers: WriteAnswer[] = [];
  const bursts: Array<Promise<unknown>> = [];
  const take = (kind: WriteKind) => tickets.get(kind)?.shift();
  const keptForBurst = new Map([...tickets].map(([kind, own]) => [kind, own.splice(-burstPerKind)]));
  const lane = async (kind: WriteKind, clock: FaultClock) => {
    for (;;) {
      const ticket = take(kind);
      if (!ticket) return;
      const answer = await spend(writer, ticket, options.callTimeoutMs);
      answers.push(answer);
      const killed = clock.killedMs();
      if (performance.now() - killed > options.limitMs) return;
      if (clock.recovered() && answer.startedMs > killed && succeeded(answer)) return;
      await sleep(options.pauseMs);
    }
  };
  return {
    answers,
    async start(clock) {
      const kinds = writeKinds.filter((kind) => tickets.has(kind));
      await Promise.all(kinds.flatMap((kind) => Array.from({ length: options.lanes }, () => lane(kind, clock))));
      await Promise.all(bursts);
    },
    burst() {
      for (const kind of writeKinds)
        for (const ticket of keptForBurst.get(kind)?.splice(0) ?? [])
          bursts.push(spend(writer, ticket, options.callTimeoutMs).then((answer) => answers.push(answer)));
    },
  };
}

/** What a run's answers came to, per kind and in all. */
export interface InflightAssessment {
  /** "refresh: 200: 7, 503 server.database_unavailable: 3" per kind. */
  tallies: string[];
  /** Calls started before the fault and answered after it. */
  onTheirWayAtFault: number;
  acknowledged: number;
  /** Successful answers whose write is not there after recovery (must be none). */
  missing: string[];
  /** Answers other than success or 503 server.database_unavailable with Retry-After, or past the bound. */
  outsideContract: string[];
}

/** Checks every answer (after recovery: each success's write read back once). */
export async function assessInflight(
  writer: Writer,
  answers: readonly WriteAnswer[],
  killedMs: number,
  callBoundMs: number,
): Promise<InflightAssessment> {
  const tallies = writeKinds.map((kind) => {
    const counts = new Map<string, number>();
    for (const answer of answers.filter((a) => a.ticket.kind === kind)) {
      const key = succeeded(answer) ? String(answer.status) : `${answer.status} ${answer.code ?? ""}`.trim();
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return `${kind}: ${[...counts].map(([key, count]) => `${key}: ${count}`).join(", ") || "none"}`;
  });
  const missing: string[] = [];
  const outsideContract: string[] = [];
  for (const answer of answers) {
    const what = `${answer.ticket.kind} ${answer.ticket.value.slice(0, 16)}: ${answer.status} ${answer.body.slice(0, 300)}`;
    if (answer.endedMs - answer.startedMs >= callBoundMs)
      outsideContract.push(`${what} (took ${Math.round(answer.endedMs - answer.startedMs)} ms)`);
    if (succeeded(answer)) {
      const absent = await visibleAfter(writer, answer);
      if (absent) missing.push(absent);
    } else if (answer.status !== 503 || answer.code !== "server.database_unavailable" || answer.retryAfter !== "5") {
      outsideContract.push(`${what} (Retry-After ${answer.retryAfter})`);
    }
  }
  return {
    tallies,
    onTheirWayAtFault: answers.filter((a) => a.startedMs < killedMs && a.endedMs > killedMs).length,
    acknowledged: answers.filter(succeeded).length,
    missing,
    outsideContract,
  };
}
