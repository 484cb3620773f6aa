// The moves nobody asks for, made on time: a PENDING order the merchant did not decide within
// ONLINE_ORDER_DECISION_SECONDS is REJECTED (TIMED_OUT) by the platform, and the automatic sandbox merchant moves
// sandbox orders a step (SANDBOX_ORDER_AUTOPILOT_SECONDS) apart: accepted (or rejected, for customer name REJECT),
// ready, completed. Runs wherever a region's DataService runs on its database. Each move is the lifecycle's
// conditional write (./order-changes.ts), so several instances sweeping the same region, or a sweep racing the point
// of sale, move an order once: the loser finds the new status and lets it be. The same sweep takes the sandbox
// merchant's menu turns (./menu-autopilot.ts).
import type { Region } from "../config/regions.js";
import { readServiceError } from "../errors/index.js";
import { sleep } from "../runtime/clock.js";
import type { ServiceContext } from "../runtime/service-context.js";
import type { SqlClient } from "../storage/sql-client.js";
import { regionSchema } from "../storage/schemas.js";
import { turnDueStores } from "./menu-autopilot.js";
import { createOrderChanges } from "./order-changes.js";
import type { OrderMoveName } from "./order-lifecycle.js";
import { createOrderQueries, type DueOrderRow, type MoveColumns } from "./queries/order-queries.js";

/** How often the timers look for due orders: well under the autopilot's shortest useful step (1 s). */
export const orderTimerIntervalMs = 1_000;
/** Orders moved per query; a sweep repeats until it finds fewer, at most maxRounds times (the next tick goes on). */
const batchSize = 100;
const maxRounds = 20;

/** The customer name that makes the automatic sandbox merchant reject an order instead (issue 25). */
export const autopilotRejectName = "REJECT";

export interface OrderTimers {
  /** Makes every move that is due now; resolves with how many orders moved. Runs one sweep at a time per process. */
  runDue(): Promise<number>;
  /**
   * Sweeps every orderTimerIntervalMs of the clock until the returned stop is called: no tick after it, and a sweep
   * under way stops at its next query (the stop waits for that one).
   */
  start(): () => Promise<void>;
  /** What start's returned stop does (nothing when not started): for a shutdown that stops every loop at once. */
  stop(): Promise<void>;
}

export function createOrderTimers(context: ServiceContext, options: { region: Region; sql: SqlClient }): OrderTimers {
  const schema = regionSchema(options.region);
  const orders = createOrderQueries(options.sql, schema);
  const changes = createOrderChanges(options.sql, schema);
  const { clock, logger } = context;
  const { autopilotSeconds, menuAutopilotSeconds } = context.config.onlineOrders;
  const later = (seconds: number) => new Date(clock.now() + seconds * 1000).toISOString();

  /** One move of a timer; false when someone else moved the order first (a refusal here is not a failure). */
  const tryMove = async (
    order: DueOrderRow,
    move: OrderMoveName,
    set: MoveColumns,
    actor: string,
  ): Promise<boolean> => {
    try {
      await changes.move(Number(order.company_id), Number(order.id), move, set, actor, new Date(clock.now()));
      return true;
    } catch (error) {
      const { code } = readServiceError(error);
      if (code === "partner.order_status_conflict" || code === "partner.order_not_found") return false;
      throw error;
    }
  };

  /** The automatic sandbox merchant's next move of an order, from the status it is in now. */
  const autopilotStep = async (order: DueOrderRow): Promise<boolean> => {
    const next = later(autopilotSeconds);
    switch (order.status) {
      case "PENDING":
        if (order.customer_name === autopilotRejectName)
          return tryMove(order, "reject", { reason: "OTHER", decideBy: null, autopilotAt: null }, "sandbox");
        return tryMove(
          order,
          "accept",
          {
            promisedFor: order.requested_for?.toISOString() ?? later(3 * autopilotSeconds),
            decideBy: null,
            autopilotAt: next,
          },
          "sandbox",
        );
      case "ACCEPTED":
        return tryMove(order, "markReady", { autopilotAt: next }, "sandbox");
      case "READY":
        return tryMove(order, "complete", { autopilotAt: null }, "sandbox");
      default:
        // Finished another way (the sandbox helper, the partner's cancel): nothing left to do.
        await orders.clearAutopilot(Number(order.company_id), Number(order.id));
        return false;
    }
  };

  /** Set once `start`'s stop is called: a sweep under way ends at its next step rather than finishing its rounds. */
  let stopped = false;
  const sweep = async (): Promise<number> => {
    let moved = 0;
    for (let round = 0; round < maxRounds && !stopped; round++) {
      const now = new Date(clock.now()).toISOString();
      const due = await orders.dueForTimeout(now, batchSize);
      for (const order of due) {
        if (stopped) return moved;
        if (await tryMove(order, "timeOut", { reason: "TIMED_OUT", decideBy: null, autopilotAt: null }, "platform"))
          moved += 1;
      }
      const steps = autopilotSeconds > 0 && !stopped ? await orders.dueForAutopilot(now, batchSize) : [];
      for (const order of steps) {
        if (stopped) return moved;
        if (await autopilotStep(order)) moved += 1;
      }
      if (due.length < batchSize && steps.length < batchSize) break;
    }
    // The menu's turns (SANDBOX_MENU_AUTOPILOT_SECONDS): stores, not orders, so not counted in `moved`.
    if (menuAutopilotSeconds > 0 && !stopped)
      await turnDueStores(options.sql, schema, menuAutopilotSeconds, new Date(clock.now()));
    return moved;
  };

  // One sweep at a time in this process: a sweep asked for while one runs waits for it, then runs afresh.
  let running: Promise<unknown> = Promise.resolve();
  const runDue = () => {
    const next = running.then(sweep, sweep);
    running = next.catch(() => undefined);
    return next;
  };

  let stopLoop: () => Promise<void> = async () => {};
  return {
    runDue,
    stop: () => stopLoop(),
    start() {
      const abort = new AbortController();
      const loop = (async () => {
        while (!abort.signal.aborted) {
          await sleep(clock, orderTimerIntervalMs, abort.signal);
          if (abort.signal.aborted) break;
          await runDue().catch((error: unknown) =>
            logger.error("online order timers failed; retrying on the next tick", { region: options.region, error }),
          );
        }
      })();
      stopLoop = async () => {
        stopped = true;
        abort.abort();
        await loop;
      };
      return stopLoop;
    },
  };
}
