// The span of one webhook delivery attempt (issue 41): an HTTP client span (semantic conventions: method, server
// address, status) in a trace of its own, linked to the request whose commit recorded the event (the traceparent the
// outbox kept, src/events/outbox.ts): an attempt may run days after that request, and a retry is another attempt of
// the same event. The URL's path and query are left out: an endpoint's URL may carry a token of the partner's.
import { SpanStatusCode } from "@opentelemetry/api";
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
} from "@opentelemetry/semantic-conventions";
import { inLinkedSpan } from "../runtime/spans.js";
import type { ClaimedAttempt } from "./queries/delivery-queries.js";
import type { AttemptResult } from "./sender.js";

export function inAttemptSpan(
  claimed: ClaimedAttempt,
  attempt: number,
  send: () => Promise<AttemptResult>,
): Promise<AttemptResult> {
  return inLinkedSpan(
    {
      name: "POST webhook",
      kind: "client",
      linkedTo: claimed.traceparent,
      attributes: {
        [ATTR_HTTP_REQUEST_METHOD]: "POST",
        [ATTR_SERVER_ADDRESS]: URL.canParse(claimed.url) ? new URL(claimed.url).hostname : "",
        "webhook.event_type": claimed.event_type,
        "webhook.event_id": claimed.event_id,
        "webhook.delivery_id": claimed.id,
        "webhook.endpoint_id": claimed.endpoint_id,
        "webhook.attempt": attempt,
      },
    },
    async (span) => {
      const result = await send();
      span?.setAttribute("webhook.outcome", result.outcome);
      if (result.statusCode !== undefined) span?.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.statusCode);
      if (result.outcome !== "SUCCEEDED") span?.setStatus({ code: SpanStatusCode.ERROR, message: result.outcome });
      return result;
    },
  );
}
