// The partner client's enumerations are unions of their values, not `string` (issue 42): an order's status, the
// status filter and the reason are checked by the compiler (the @ts-expect-error lines below fail the type-check if
// a wrong value is accepted), and their value lists are the server's own (the lifecycle's statuses, the proto's
// OnlineOrderReason without its UNSPECIFIED zero).
import * as assert from "uvu/assert";
import { OnlineOrderReasonSchema } from "../../gen/partnerapi/v1/data_service_pb.js";
import {
  onlineOrderReasons,
  onlineOrderStatuses,
  type OnlineOrder,
  type OnlineOrderEventData,
  type OnlineOrderQuery,
} from "../../src/client/index.js";
import { orderStatuses } from "../../src/data/order-lifecycle.js";
import { suite } from "../support/suite.js";

const Types = suite("client/types");

Types("an order's status and reason lists are the server's", () => {
  assert.equal([...onlineOrderStatuses], [...orderStatuses]);
  assert.equal(
    [...onlineOrderReasons],
    OnlineOrderReasonSchema.values
      .filter((value) => value.number !== 0)
      .map((value) => value.name.replace(/^ONLINE_ORDER_REASON_/, "")),
  );
});

Types("status, the status filter, the reason and an event's order are typed by their values", () => {
  const status: OnlineOrder["status"] = "PENDING";
  const query: OnlineOrderQuery = { status: "COMPLETED" };
  const reason: NonNullable<OnlineOrder["reason"]> = "TIMED_OUT";
  const eventStatus: OnlineOrderEventData["order"]["status"] = "ACCEPTED";
  // @ts-expect-error: not a status
  const wrongStatus: OnlineOrder["status"] = "DONE";
  // @ts-expect-error: not a status to filter by
  const wrongQuery: OnlineOrderQuery = { status: "pending" };
  // @ts-expect-error: not a reason
  const wrongReason: OnlineOrder["reason"] = "BUSY";
  assert.equal([status, query.status, reason, eventStatus], ["PENDING", "COMPLETED", "TIMED_OUT", "ACCEPTED"]);
  assert.equal([wrongStatus, wrongQuery.status, wrongReason], ["DONE", "pending", "BUSY"]);
});

Types.run();
