// This process's attempt slots, shared between tenants (issue 36; docs/decisions.md, "Tenant isolation of the
// attempt slots"). One loop fetches due attempts while a slot is free, and never fetches an attempt whose app
// already holds WEBHOOK_APP_CONCURRENCY of this process's slots: the fetch skips that app's endpoints (pg-boss's
// ignoreGroups; a group is an endpoint, whose own bound pg-boss keeps across every process). One fetch takes as many
// attempts as the smallest room left: the free slots, and the share left to the app that holds the most of the
// apps not at their share, so that even a batch of one app's attempts only fills its share (issue 43: one fetch per
// batch, not per attempt). An attempt fetched for an app at its share all the same (an endpoint created after the
// skip list was read) is handed back unstarted (pg-boss's restore: no attempt counted, its place in line kept) and
// its endpoint is known from then on, so it is never fetched twice. A slot freed, a wake or the poll sends the loop
// to fetch again; it never spins on a job it cannot run.
/** An attempt the queue handed to this process: its job, and the endpoint (pg-boss group) it goes to. */
export interface FetchedAttempt {
  /** What the handler runs (the queue's job: one attempt of one delivery). */
  job: unknown;
  endpointId: string;
}

export interface DispatcherDeps<T extends FetchedAttempt> {
  /** Attempts this process runs at once (WEBHOOK_WORKER_CONCURRENCY). */
  slots: number;
  /** Of which one app's endpoints hold at most this many (WEBHOOK_APP_CONCURRENCY). */
  appSlots: number;
  /** How often the loop looks for due attempts when nothing woke it. */
  pollMs: number;
  /**
   * How long the loop, woken by a slot freed while other attempts still run, waits for more slots to free before it
   * fetches (absent: no wait). While a burst drains, attempts end one by one; without it, every end is a fetch of
   * one job (issue 43: pg-boss's fetch with group concurrency is the costliest statement of a delivery).
   */
  gatherMs?: number;
  /** Claims up to `limit` due attempts, none of `skipEndpoints`, in the queue's order; none when none is due. */
  fetch(skipEndpoints: readonly string[], limit: number): Promise<readonly T[]>;
  /** Gives a fetched attempt back to the queue unstarted, as if never fetched. */
  handBack(attempt: T): Promise<void>;
  /** Marks the job done (`error` undefined) or failed, for the queue to retry. */
  settle(attempt: T, error?: unknown): Promise<void>;
  /** The app of each endpoint (absent: unknown). */
  appsOf(endpointIds: readonly string[]): Promise<Map<string, string>>;
  /** The live endpoints of these apps. */
  endpointsOf(appIds: readonly string[]): Promise<readonly string[]>;
  run(job: T["job"]): Promise<void>;
  onError(error: unknown): void;
  /**
   * How long a settle or hand-back the database refused is tried again (default 60 s, the queue's expiry: past it
   * pg-boss retries the job itself). Each try waits `wait` (default a timer; tests record it instead of sleeping).
   */
  persistForMs?: number;
  wait?: (ms: number) => Promise<void>;
}

/** First wait before a refused settle is tried again; doubled after each refusal up to persistMaxDelayMs. */
const persistFirstDelayMs = 250;
const persistMaxDelayMs = 4_000;

export interface AttemptDispatcher {
  /** Looks for due attempts now (after a commit that enqueued some, or a slot freed). */
  wake(): void;
  /** Attempts running now, per app (what the slots hold). */
  held(): ReadonlyMap<string, number>;
  /** Stops fetching and waits up to `timeoutMs` for the running attempts; unfinished ones expire in the queue. */
  stop(timeoutMs: number): Promise<void>;
}

export function startAttemptDispatcher<T extends FetchedAttempt>(deps: DispatcherDeps<T>): AttemptDispatcher {
  const running = new Set<Promise<void>>();
  const perApp = new Map<string, number>();
  /** Endpoint → app, learnt once (an endpoint never changes app), deleted endpoints included. */
  const appOfEndpoint = new Map<string, string>();
  let stopping = false;
  let woken = false;
  /** A slot was freed since the last fetch (not a relay's wake, nor the poll). */
  let freed = false;
  let interrupt: (() => void) | undefined;
  const persistForMs = deps.persistForMs ?? 60_000;
  const wait = deps.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref()));

  /**
   * Runs a write to the queue (a settle, a hand-back) until it is done. A job whose settle never reached the
   * database (a failover: the primary gone between the fetch and the settle) stays active until pg-boss expires it,
   * 60 s and up to a supervise interval later; tried again here, it settles within seconds of the database's return.
   * Settles are fenced to their fetch (the job's retry count), so one that lands after pg-boss's own retry changes
   * nothing. Gives up when the dispatcher stops or after persistForMs, leaving the job to pg-boss's expiry.
   */
  async function persist(write: () => Promise<void>): Promise<void> {
    let waited = 0;
    for (let delay = persistFirstDelayMs; ; delay = Math.min(delay * 2, persistMaxDelayMs)) {
      try {
        return await write();
      } catch (error) {
        deps.onError(error);
        if (stopping || waited + delay > persistForMs) return;
      }
      await wait(delay);
      waited += delay;
    }
  }

  const wake = () => {
    woken = true;
    interrupt?.();
  };
  /** Waits for a wake (or `ms`); returns at once when one came since the last wait. */
  const pause = (ms?: number) =>
    new Promise<void>((resolve) => {
      if (woken || stopping) return resolve();
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        interrupt = undefined;
        resolve();
      }
      interrupt = done;
    }).then(() => {
      woken = false;
    });

  let endGather: (() => void) | undefined;
  /** Waits `ms` for more slots to free, or less when nothing is left to wait for (endGather) or on a stop. */
  const gather = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        endGather = undefined;
        resolve();
      }
      endGather = done;
    });

  /** The app an attempt counts against: its endpoint's, or the endpoint itself when the endpoint is gone. */
  async function appsOf(endpointIds: readonly string[]): Promise<string[]> {
    const unknown = [...new Set(endpointIds.filter((id) => !appOfEndpoint.has(id)))];
    if (unknown.length > 0) for (const [endpoint, app] of await deps.appsOf(unknown)) appOfEndpoint.set(endpoint, app);
    return endpointIds.map((id) => appOfEndpoint.get(id) ?? `endpoint:${id}`);
  }

  /**
   * How many attempts one fetch may take: no more than the free slots, nor than the share left to any app that may
   * be fetched for (an app seen for the first time has all of it), so every attempt of the batch can start even if
   * all go to one app, as they would one fetch at a time.
   */
  function batchLimit(): number {
    let room = deps.appSlots;
    for (const held of perApp.values()) if (held < deps.appSlots) room = Math.min(room, deps.appSlots - held);
    return Math.max(1, Math.min(deps.slots - running.size, room));
  }

  /** Every endpoint of the apps at their bound: the live ones, and any this process saw that are gone since. */
  async function endpointsToSkip(): Promise<string[]> {
    const full = [...perApp].filter(([, held]) => held >= deps.appSlots).map(([app]) => app);
    if (full.length === 0) return [];
    const apps = full.filter((app) => !app.startsWith("endpoint:"));
    const skip = new Set(apps.length > 0 ? await deps.endpointsOf(apps) : []);
    for (const [endpoint, app] of appOfEndpoint) if (full.includes(app)) skip.add(endpoint);
    for (const app of full) if (app.startsWith("endpoint:")) skip.add(app.slice("endpoint:".length));
    return [...skip];
  }

  /**
   * Fetches a batch of attempts and starts them: "none" when none is due; "handed back" when one went to an app at
   * its share (its endpoint is known from now on, so the next fetch skips it: no loop on it).
   */
  async function startNext(): Promise<"started" | "none" | "handed back"> {
    const attempts = await deps.fetch(await endpointsToSkip(), batchLimit());
    if (attempts.length === 0) return "none";
    let apps: string[];
    try {
      apps = await appsOf(attempts.map((attempt) => attempt.endpointId));
    } catch (error) {
      await Promise.all(attempts.map((attempt) => persist(() => deps.handBack(attempt))));
      throw error;
    }
    let handedBack = false;
    for (const [index, attempt] of attempts.entries()) {
      const app = apps[index]!;
      const held = perApp.get(app) ?? 0;
      if (held >= deps.appSlots) {
        // A hand-back that never lands leaves the job active until pg-boss expires and retries it: never claimed, so
        // sent then.
        await persist(() => deps.handBack(attempt));
        handedBack = true;
        continue;
      }
      perApp.set(app, held + 1);
      const run: Promise<void> = execute(attempt).finally(() => {
        const left = (perApp.get(app) ?? 1) - 1;
        if (left > 0) perApp.set(app, left);
        else perApp.delete(app);
        running.delete(run);
        freed = true;
        // Nothing more to wait for: every attempt ended, or the room is as large as one fetch may take.
        if (running.size === 0 || batchLimit() >= Math.min(deps.slots, deps.appSlots)) endGather?.();
        wake();
      });
      running.add(run);
    }
    return handedBack ? "handed back" : "started";
  }

  /** Runs the attempt and settles its job: done, or failed for the queue to retry (the handler threw). */
  async function execute(attempt: T): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      await deps.run(attempt.job);
    } catch (error) {
      failure = { error };
    }
    await persist(() => (failure ? deps.settle(attempt, failure.error) : deps.settle(attempt)));
  }

  const loop = (async () => {
    while (!stopping) {
      if (running.size >= deps.slots) {
        await pause();
        continue;
      }
      if (freed && deps.gatherMs && running.size > 0) await gather(deps.gatherMs);
      freed = false;
      let next: Awaited<ReturnType<typeof startNext>> | "failed";
      try {
        next = await startNext();
      } catch (error) {
        deps.onError(error);
        next = "failed";
      }
      if (next === "none" || next === "failed") await pause(deps.pollMs);
    }
  })();

  return {
    wake,
    held: () => perApp,
    async stop(timeoutMs) {
      stopping = true;
      interrupt?.();
      endGather?.();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running]),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}
