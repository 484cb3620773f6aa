// One statement for many of the same write (issue 43): an item given while a write is on its way waits for the next
// one, which takes every item given meanwhile. Alone, an item is written at once, as before; under load one
// statement writes as many items as arrived during the last one, with no timer and no added wait.

/** Returns `write` for one item: it resolves once the batch that took the item is written, or rejects with its error. */
export function inBatches<J>(writeAll: (items: J[]) => Promise<unknown>): (item: J) => Promise<void> {
  let waiting: Array<{ item: J; done: () => void; failed: (error: unknown) => void }> = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await writeAll(batch.map((entry) => entry.item));
        for (const entry of batch) entry.done();
      } catch (error) {
        for (const entry of batch) entry.failed(error);
      }
    }
    writing = false;
  };
  return (item) =>
    new Promise<void>((done, failed) => {
      waiting.push({ item, done, failed });
      if (!writing) void drain();
    });
}

/**
 * Returns `read` for one item, answered with its own result: the items given in one turn (before the next
 * microtask: a fetched batch's attempts all start in one loop) go to `readAll` together, and so do the items given
 * while a read is on its way. `readAll` answers one result per item, in their order.
 */
export function gatheredReads<J, R>(readAll: (items: J[]) => Promise<readonly R[]>): (item: J) => Promise<R> {
  let waiting: Array<{ item: J; done: (result: R) => void; failed: (error: unknown) => void }> = [];
  let reading = false;
  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const results = await readAll(batch.map((entry) => entry.item));
        for (const [index, entry] of batch.entries()) entry.done(results[index]!);
      } catch (error) {
        for (const entry of batch) entry.failed(error);
      }
    }
    reading = false;
  };
  return (item) =>
    new Promise<R>((done, failed) => {
      waiting.push({ item, done, failed });
      if (reading) return;
      reading = true;
      queueMicrotask(() => void drain());
    });
}
