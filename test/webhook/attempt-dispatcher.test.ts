// The attempt slots (src/webhook/attempt-dispatcher.ts) over an in-memory queue (a unit test: the same rules over
// pg-boss and real receivers are test/webhook/tenant-isolation.test.ts): an app at its share is skipped by the
// fetch, a job taken for it all the same (an endpoint the skip list did not know) is handed back unstarted and
// its endpoint skipped from then on, the other apps' jobs run meanwhile, and a freed slot starts the next job.
import * as assert from "uvu/assert";
import { startAttemptDispatcher, type FetchedAttempt } from "../../src/webhook/attempt-dispatcher.js";
import { suite } from "../support/suite.js";

const Dispatcher = suite("webhook/attempt-dispatcher");

interface Queued extends FetchedAttempt {
  job: { deliveryId: string; attempt: number };
  name: string;
}

/** A queue in creation order; `fetch` takes the first `limit` jobs whose endpoints are not skipped. */
function memoryQueue(jobs: Array<[name: string, endpointId: string]>) {
  const waiting: Queued[] = jobs.map(([name, endpointId], i) => ({
    name,
    endpointId,
    job: { deliveryId: name, attempt: i + 1 },
  }));
  const log: string[] = [];
  return {
    waiting,
    log,
    async fetch(skip: readonly string[], limit: number) {
      log.push(`fetch ${limit} skipping [${[...skip].sort().join(",")}]`);
      const taken: Queued[] = [];
      for (let index = 0; index < waiting.length && taken.length < limit; )
        if (skip.includes(waiting[index]!.endpointId)) index++;
        else taken.push(waiting.splice(index, 1)[0]!);
      return taken;
    },
    async handBack(job: Queued) {
      log.push(`hand back ${job.name}`);
      waiting.unshift(job);
    },
  };
}

/** Runs that end when the test says: `release(name)`. */
function heldRuns() {
  const ends = new Map<string, () => void>();
  const started: string[] = [];
  let onStart: () => void = () => {};
  return {
    started,
    async run(job: { deliveryId: string }) {
      started.push(job.deliveryId);
      onStart();
      await new Promise<void>((resolve) => ends.set(job.deliveryId, resolve));
    },
    release(name: string) {
      ends.get(name)!();
    },
    /** Resolves once `count` runs have started. */
    startedCount(count: number) {
      return new Promise<void>((resolve) => {
        onStart = () => started.length >= count && resolve();
        onStart();
      });
    },
  };
}

Dispatcher(
  "an app at its share is skipped by the fetch; a job taken for it anyway is handed back, unstarted",
  async () => {
    // App A: endpoints a1, a2 known to the endpoints table, a3 not yet (created after the skip list was read).
    const apps = new Map([
      ["a1", "A"],
      ["a2", "A"],
      ["a3", "A"],
      ["b1", "B"],
    ]);
    const queue = memoryQueue([
      ["A-1", "a1"],
      ["A-2", "a2"],
      ["A-3", "a3"],
      ["A-4", "a1"],
      ["B-1", "b1"],
      ["B-2", "b1"],
    ]);
    const runs = heldRuns();
    const settled: string[] = [];
    const dispatcher = startAttemptDispatcher<Queued>({
      slots: 4,
      appSlots: 2,
      pollMs: 3_600_000, // never: only wakes move it
      fetch: queue.fetch,
      handBack: queue.handBack,
      async settle(job, error) {
        settled.push(`${job.name} ${error === undefined ? "done" : "failed"}`);
      },
      appsOf: async (ids) => new Map(ids.filter((id) => apps.has(id)).map((id) => [id, apps.get(id)!])),
      endpointsOf: async (appIds) => (appIds.includes("A") ? ["a1", "a2"] : []),
      run: runs.run,
      onError: (error) => assert.unreachable(String(error)),
    });
    try {
      await runs.startedCount(4);
      assert.equal(runs.started, ["A-1", "A-2", "B-1", "B-2"]);
      assert.equal(queue.log, [
        // A batch as large as an app's share (2 of the 4 slots): both may go to one app, and here do.
        "fetch 2 skipping []",
        // A holds its two: its known endpoints are skipped; a3 is not known yet, so A-3 is taken and handed back,
        // and B-1 of the same batch starts.
        "fetch 2 skipping [a1,a2]",
        "hand back A-3",
        // B has one of its two left, and one slot is free: a batch of one.
        "fetch 1 skipping [a1,a2,a3]",
      ]);
      assert.equal(
        dispatcher.held(),
        new Map([
          ["A", 2],
          ["B", 2],
        ]),
      );
      // A freed slot of A: its next job in line (A-3, handed back with its place kept) starts.
      runs.release("A-1");
      await runs.startedCount(5);
      assert.equal(runs.started.at(-1), "A-3");
      assert.equal(queue.log.at(-1), "fetch 1 skipping [b1]");
      assert.equal(settled, ["A-1 done"]);
      assert.equal(
        queue.waiting.map((job) => job.name),
        ["A-4"],
      );
    } finally {
      for (const name of runs.started) runs.release(name);
      await dispatcher.stop(1_000);
    }
  },
  { timeoutMs: 20_000 },
);

Dispatcher(
  "a handler that throws fails its job for the queue to retry, and frees its slot",
  async () => {
    const queue = memoryQueue([
      ["A-1", "a1"],
      ["A-2", "a1"],
    ]);
    const settled: string[] = [];
    let second: () => void = () => {};
    const secondSettled = new Promise<void>((resolve) => {
      second = resolve;
    });
    const dispatcher = startAttemptDispatcher<Queued>({
      slots: 2,
      appSlots: 1,
      pollMs: 3_600_000,
      fetch: queue.fetch,
      handBack: queue.handBack,
      async settle(job, error) {
        settled.push(`${job.name} ${error === undefined ? "done" : `failed: ${(error as Error).message}`}`);
        if (settled.length === 2) second();
      },
      appsOf: async () => new Map([["a1", "A"]]),
      endpointsOf: async () => ["a1"],
      async run(job) {
        if (job.deliveryId === "A-1") throw new Error("database gone");
      },
      onError: (error) => assert.unreachable(String(error)),
    });
    await secondSettled;
    await dispatcher.stop(1_000);
    assert.equal(settled, ["A-1 failed: database gone", "A-2 done"]);
    assert.equal(dispatcher.held(), new Map());
  },
  { timeoutMs: 20_000 },
);

Dispatcher(
  "a settle the database refused is tried again, waiting longer each time, until it lands; one refused past the bound is left to the queue's expiry",
  async () => {
    const queue = memoryQueue([
      ["A-1", "a1"],
      ["A-2", "a1"],
    ]);
    const tries: string[] = [];
    const waits: number[] = [];
    const errors: string[] = [];
    // The third fetch comes once A-2's slot is free again: its settle given up, not the dispatcher stopped.
    let slotFreedTwice: () => void = () => {};
    const bothDone = new Promise<void>((resolve) => {
      slotFreedTwice = resolve;
    });
    const dispatcher = startAttemptDispatcher<Queued>({
      slots: 1,
      appSlots: 1,
      pollMs: 3_600_000,
      async fetch(skip, limit) {
        const taken = await queue.fetch(skip, limit);
        if (queue.log.length === 3) slotFreedTwice();
        return taken;
      },
      handBack: queue.handBack,
      async settle(job, error) {
        tries.push(`${job.name} ${error === undefined ? "done" : "failed"}`);
        // A-1's completion is refused three times (the primary gone), then lands; A-2's is refused every time.
        const refusals = tries.filter((line) => line.startsWith(job.name)).length;
        if (job.name === "A-2" || refusals <= 3) throw new Error("connection refused");
      },
      appsOf: async () => new Map([["a1", "A"]]),
      endpointsOf: async () => ["a1"],
      async run() {},
      onError: (error) => errors.push((error as Error).message),
      persistForMs: 5_000,
      wait: async (ms) => {
        waits.push(ms);
      },
    });
    await bothDone;
    await dispatcher.stop(1_000);
    // A completion is tried again as a completion (never turned into a failure: the attempt was recorded).
    assert.equal(tries, [...Array(4).fill("A-1 done"), ...Array(5).fill("A-2 done")]);
    // A-1: three waits, doubling from 250 ms. A-2: 250, 500, 1,000 and 2,000 ms (3,750 in all); the next (4,000)
    // would pass the 5 s bound, so its fifth refusal is its last: pg-boss expires the job and retries it.
    assert.equal(waits, [250, 500, 1_000, 250, 500, 1_000, 2_000]);
    assert.equal(errors, Array(3 + 5).fill("connection refused"));
    assert.equal(dispatcher.held(), new Map());
  },
  { timeoutMs: 20_000 },
);

Dispatcher(
  "slots freed while other attempts run are fetched for together after the gathering wait, not one fetch each",
  async () => {
    const queue = memoryQueue([
      ["A-1", "a1"],
      ["A-2", "a2"],
      ["A-3", "a3"],
      ["A-4", "a1"],
      ["A-5", "a2"],
    ]);
    const runs = heldRuns();
    const settled: string[] = [];
    let onSettle: () => void = () => {};
    const dispatcher = startAttemptDispatcher<Queued>({
      slots: 3,
      appSlots: 3,
      pollMs: 3_600_000,
      gatherMs: 60_000, // longer than the test: the second end comes within it whatever the machine's load
      fetch: queue.fetch,
      handBack: queue.handBack,
      async settle(job) {
        settled.push(job.name);
        onSettle();
      },
      appsOf: async () => new Map(["a1", "a2", "a3"].map((id) => [id, "A"])),
      endpointsOf: async () => ["a1", "a2", "a3"],
      run: runs.run,
      onError: (error) => assert.unreachable(String(error)),
    });
    try {
      await runs.startedCount(3);
      const settledCount = (count: number) =>
        new Promise<void>((resolve) => {
          onSettle = () => settled.length >= count && resolve();
          onSettle();
        });
      runs.release("A-1");
      await settledCount(1);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(queue.log, ["fetch 3 skipping []"], "the first end waits for others, A-2 and A-3 still run");
      runs.release("A-2");
      await settledCount(2);
      assert.equal(queue.log, ["fetch 3 skipping []"]);
      // Every run over: nothing left to wait for, so the loop fetches at once for the two freed slots and the third.
      runs.release("A-3");
      await runs.startedCount(5);
      assert.equal(queue.log, ["fetch 3 skipping []", "fetch 3 skipping []"]);
      assert.equal(runs.started, ["A-1", "A-2", "A-3", "A-4", "A-5"]);
    } finally {
      for (const name of runs.started) runs.release(name);
      await dispatcher.stop(1_000);
    }
  },
  { timeoutMs: 20_000 },
);

Dispatcher.run();
