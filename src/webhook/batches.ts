// One statement for many of the same write or read (issue 43): an item given while a call is on its way waits for
// the next one, which takes every item given meanwhile. Alone, a write goes at once and a read at the end of its
// turn; under load one statement takes as many items as arrived during the last one, with no timer and no added wait.

/** Returns `write` for one item: it resolves once the batch that took the item is written, or rejects with its error. */
export function inBatches<J>(writeAll: (items: J[]) => Promise<unknown>): (item: J) => Promise<void> {
  const gatherTurn = false;
  return batchedCalls<J, void>(async (items) => {
    await writeAll(items);
    return () => undefined;
  }, gatherTurn);
}

/**
 * Returns `read` for one item, answered with its own result: the items given in one turn (before the next
 * microtask: a fetched batch's attempts all start in one loop) go to `readAll` together, and so do the items given
 * while a read is on its way. `readAll` answers one result per item, in their order.
 */
export function gatheredReads<J, R>(readAll: (items: J[]) => Promise<readonly R[]>): (item: J) => Promise<R> {
  const gatherTurn = true;
  return batchedCalls<J, R>(async (items) => {
    const results = await readAll(items);
    return (index) => results[index]!;
  }, gatherTurn);
}

/**
 * The one mechanism of both: items given while a call is on its way wait for the next, which takes them all; the
 * first item starts a call at once, or (`gatherTurn`) once the current turn's other items are given too.
 */
function batchedCalls<J, R>(
  callAll: (items: J[]) => Promise<(index: number) => R>,
  gatherTurn: boolean,
): (item: J) => Promise<R> {
  let waiting: Array<{ item: J; done: (result: R) => void; failed: (error: unknown) => void }> = [];
  let busy = false;
  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const resultOf = await callAll(batch.map((entry) => entry.item));
        for (const [index, entry] of batch.entries()) entry.done(resultOf(index));
      } catch (error) {
        for (const entry of batch) entry.failed(error);
      }
    }
    busy = false;
  };
  return (item) =>
    new Promise<R>((done, failed) => {
      waiting.push({ item, done, failed });
      if (busy) return;
      busy = true;
      if (gatherTurn) queueMicrotask(() => void drain());
      else void drain();
    });
}
