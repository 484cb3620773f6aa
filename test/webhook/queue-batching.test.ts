// What lets the delivery queue work in batches (issue 43) without changing what it promises: job ids that sort in the
// order they were made (pg-boss keeps, of one endpoint's jobs in a fetch past the endpoint's room, the first by id),
// and completions that gather the jobs settled while one is on its way into the next statement.
import * as assert from "uvu/assert";
import { gatheredReads, inBatches } from "../../src/webhook/batches.js";
import { timeOrderedIds } from "../../src/webhook/job-ids.js";
import { suite } from "../support/suite.js";

const Batching = suite("webhook/queue-batching");

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Batching(
  "job ids are UUID version 7 and sort as made: the same millisecond, a clock stepping back, 5,000 at once",
  () => {
    let now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const next = timeOrderedIds({ now: () => now });
    const ids: string[] = [];
    for (let i = 0; i < 5_000; i++) ids.push(next()); // past the 4,096 a millisecond's counter holds
    now -= 1_000; // the clock steps back a second
    ids.push(next(), next());
    now += 60_000;
    ids.push(next());
    for (const id of ids) assert.match(id, uuidV7);
    assert.equal([...ids].sort(), ids, "byte order (PostgreSQL's uuid order) is the order they were made");
    assert.is(new Set(ids).size, ids.length);
    assert.is(
      ids.at(-1)!.slice(0, 13).replace("-", ""),
      now.toString(16).padStart(12, "0"),
      "the stamp is the clock's",
    );
  },
);

Batching(
  "completions settled while one is on its way go together in the next; each caller learns its own outcome",
  async () => {
    const calls: number[][] = [];
    let release: (() => void) | undefined;
    let fail = false;
    const complete = inBatches<number>(async (jobs) => {
      calls.push(jobs);
      await new Promise<void>((resolve) => (release = resolve));
      if (fail) throw new Error("database gone");
    });
    const first = complete(1);
    const waiting = [complete(2), complete(3), complete(4)];
    assert.equal(calls, [[1]], "alone, a job is completed at once");
    release!();
    await first;
    await Promise.resolve();
    assert.equal(calls, [[1], [2, 3, 4]], "the three settled meanwhile: one statement");
    release!();
    await Promise.all(waiting);
    fail = true;
    const late = complete(5);
    assert.equal(calls, [[1], [2, 3, 4], [5]], "nothing on its way: at once again");
    release!();
    await late.then(
      () => assert.unreachable("a failed completion rejects its callers"),
      (error: Error) => assert.is(error.message, "database gone"),
    );
    fail = false;
    const again = complete(6);
    release!();
    await again;
    assert.equal(calls.at(-1), [6], "a failure does not stop the next completion");
  },
);

Batching(
  "claims given in one turn go together, those given meanwhile in the next; each caller gets its own answer",
  async () => {
    const calls: number[][] = [];
    let release: (() => void) | undefined;
    let fail = false;
    const claim = gatheredReads<number, string>(async (items) => {
      calls.push(items);
      await new Promise<void>((resolve) => (release = resolve));
      if (fail) throw new Error("database gone");
      return items.map((item) => `claimed ${item}`);
    });
    const firstTurn = [claim(1), claim(2), claim(3)];
    assert.equal(calls, [], "nothing read before the turn ends");
    await Promise.resolve();
    assert.equal(calls, [[1, 2, 3]], "the three of one turn: one read");
    const meanwhile = [claim(4), claim(5)];
    release!();
    assert.equal(await Promise.all(firstTurn), ["claimed 1", "claimed 2", "claimed 3"]);
    assert.equal(
      calls,
      [
        [1, 2, 3],
        [4, 5],
      ],
      "given while the read was on its way: the next read",
    );
    release!();
    assert.equal(await Promise.all(meanwhile), ["claimed 4", "claimed 5"]);
    fail = true;
    const late = claim(6);
    await Promise.resolve();
    release!();
    await late.then(
      () => assert.unreachable("a failed read rejects its callers"),
      (error: Error) => assert.is(error.message, "database gone"),
    );
    fail = false;
    const again = claim(7);
    await Promise.resolve();
    assert.equal(calls.at(-1), [7], "a failure does not stop the next read");
    release!();
    assert.is(await again, "claimed 7");
  },
);

Batching.run();
