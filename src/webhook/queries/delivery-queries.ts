// Queries of control.webhook_deliveries and control.webhook_attempts, and the fan-out of an outbox row to the
// endpoints that may see it. Every function runs on the `sql` given (pool or transaction).
import type { SqlClient } from "../../storage/sql-client.js";

/** An outbox row (control.webhook_outbox or region_<r>.webhook_outbox). */
export interface OutboxRow {
  id: number;
  event_id: string;
  type: string;
  company_id: number | null;
  app_id: string | null;
  environment: string | null;
  endpoint_id: string | null;
  store_id: number | null;
  data: unknown;
  occurred_at: Date;
  /** The W3C traceparent of the request that recorded it, when traced and sampled. */
  traceparent: string | null;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  state: "PENDING" | "SUCCEEDED" | "FAILED";
  attempts_started: number;
  attempts_recorded: number;
  next_attempt_at: Date | null;
  occurred_at: Date;
  created_at: Date;
  /** The outbox event's traceparent: each attempt's span links to it. */
  traceparent: string | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  outcome: string;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string;
}

/** A successful attempt to record, and the endpoint whose failure streak it ends. */
export type SucceededAttempt = Omit<AttemptRow, "status_code" | "outcome"> & {
  status_code?: number;
  endpoint_id: string;
};

/** A delivery the relay adds: an event to one endpoint. */
export interface NewDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  payload: string;
  occurredAt: Date;
  traceparent: string | null;
}

/** One attempt to claim (claimMany). */
export interface AttemptClaim {
  deliveryId: string;
  attempt: number;
  now: Date;
  staleBefore: Date;
}

/** A claimed attempt: the delivery and what the worker needs of its endpoint. */
export interface ClaimedAttempt extends DeliveryRow {
  url: string;
  app_id: string;
  environment: "SANDBOX" | "PRODUCTION";
  secret_sealed: Uint8Array;
  previous_secret_sealed: Uint8Array | null;
  previous_secret_expires_at: Date | null;
  endpoint_disabled: boolean;
}

const deliveryColumns = `d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, d.state, d.attempts_started, d.attempts_recorded,
  d.next_attempt_at, d.occurred_at, d.created_at, d.traceparent`;

async function claimMany(sql: SqlClient, claims: readonly AttemptClaim[]): Promise<(ClaimedAttempt | undefined)[]> {
  const first = new Map<string, number>();
  for (const [index, claim] of claims.entries()) if (!first.has(claim.deliveryId)) first.set(claim.deliveryId, index);
  const tried = [...first.values()].map((index) => claims[index]!);
  if (tried.length === 0) return [];
  const rows = await sql<ClaimedAttempt[]>`
    update control.webhook_deliveries d set attempts_started = i.attempt, attempt_started_at = i.now, next_attempt_at = null
    from unnest(${tried.map((claim) => claim.deliveryId)}::text[], ${tried.map((claim) => claim.attempt)}::int[],
        ${tried.map((claim) => claim.now.toISOString())}::timestamptz[],
        ${tried.map((claim) => claim.staleBefore.toISOString())}::timestamptz[]) as i (id, attempt, now, stale_before),
      control.webhook_endpoints e
    where d.id = i.id and e.id = d.endpoint_id and d.state = 'PENDING'
      and (d.attempts_started = i.attempt - 1
        or (d.attempts_started = i.attempt and d.attempts_recorded < i.attempt and d.attempt_started_at < i.stale_before))
    returning ${sql.unsafe(deliveryColumns)}, e.url, e.app_id, e.environment, e.secret_sealed, e.previous_secret_sealed,
      e.previous_secret_expires_at, (e.disabled_at is not null or e.deleted_at is not null) as endpoint_disabled`;
  const claimed = new Map(rows.map((row) => [row.id, row]));
  return claims.map((claim, index) =>
    first.get(claim.deliveryId) === index ? claimed.get(claim.deliveryId) : undefined,
  );
}

export function createDeliveryQueries(sql: SqlClient) {
  return {
    /**
     * Leases up to `limit` outbox rows of `schema` for `leaseSeconds` (a row whose lease lapsed, its relay having
     * died, is taken again). SKIP LOCKED: relays of several processes take disjoint rows.
     */
    async leaseOutbox(schema: string, now: Date, leaseSeconds: number, limit: number): Promise<OutboxRow[]> {
      return sql<OutboxRow[]>`
        update ${sql(schema)}.webhook_outbox set claimed_until = ${new Date(now.getTime() + leaseSeconds * 1000)}
        where id in (
          select id from ${sql(schema)}.webhook_outbox
          where claimed_until is null or claimed_until < ${now}
          order by id limit ${limit} for update skip locked)
        returning id, event_id, type, company_id, app_id, environment, endpoint_id, store_id, data, occurred_at, traceparent`;
    },
    /** When the oldest event still in `schema`'s outbox was recorded; undefined when the outbox is empty. */
    async oldestOutboxEvent(schema: string): Promise<Date | undefined> {
      const [row] = await sql<{ occurred_at: Date }[]>`
        select occurred_at from ${sql(schema)}.webhook_outbox order by id limit 1`;
      return row?.occurred_at;
    },
    /** The earliest time a pending delivery's next attempt was due, of those due by `now`; undefined when none. */
    async oldestDueAttempt(now: Date): Promise<Date | undefined> {
      const [row] = await sql<{ due: Date | null }[]>`
        select min(next_attempt_at) as due from control.webhook_deliveries
        where state = 'PENDING' and next_attempt_at <= ${now}`;
      return row?.due ?? undefined;
    },
    async deleteOutbox(schema: string, ids: readonly number[]): Promise<void> {
      if (ids.length > 0)
        await sql`delete from ${sql(schema)}.webhook_outbox where id = any(${ids as number[]}::bigint[])`;
    },
    /**
     * The live, enabled endpoints that receive `event`: those of its app and environment, or its one endpoint, or
     * (a store's or the merchant's event: an order, a store, the catalogue) those of every app holding a live grant
     * for the company whose product reads the resource (`products`, src/webhook/relay.ts), where an ADSR app in
     * production sees only the stores an approved access request names. The endpoint's event filter applies to every event but webhook.test.
     */
    async audience(event: OutboxRow, products: readonly string[]): Promise<{ id: string }[]> {
      return sql<{ id: string }[]>`
        select e.id from control.webhook_endpoints e
        where e.deleted_at is null and e.disabled_at is null
          and (${event.type} = 'webhook.test' or cardinality(e.event_types) = 0 or ${event.type} = any(e.event_types))
          and case
            when ${event.endpoint_id}::text is not null then e.id = ${event.endpoint_id}
            when ${event.app_id}::text is not null then e.app_id = ${event.app_id} and e.environment = ${event.environment}
            else exists (
              select 1 from control.grants g join control.apps a on a.id = g.app_id
              where g.app_id = e.app_id and g.environment = e.environment and g.company_id = ${event.company_id}
                and g.revoked_at is null and a.product = any(${products as string[]}::text[])
                and (a.product <> 'ADSR' or g.environment = 'SANDBOX'))
              or exists (
              select 1 from control.access_requests r join control.apps a on a.id = r.app_id
              where r.app_id = e.app_id and e.environment = 'PRODUCTION' and r.company_id = ${event.company_id}
                and r.state = 'APPROVED' and ${event.store_id}::bigint = any(r.approved_store_ids)
                and a.product = any(${products as string[]}::text[]))
          end`;
    },
    /**
     * The deliveries of events to endpoints, in one statement, each unless one exists (a relay repeated after a crash
     * adds nothing); the ids of those added, with their endpoints. Arrays, not a row of parameters each: a relay's
     * batch of events fans out to any number of endpoints.
     */
    async insertMany(rows: readonly NewDelivery[], now: Date): Promise<{ id: string; endpoint_id: string }[]> {
      if (rows.length === 0) return [];
      const column = <K extends keyof NewDelivery>(key: K) => rows.map((row) => row[key]);
      return sql<{ id: string; endpoint_id: string }[]>`
        insert into control.webhook_deliveries (id, endpoint_id, event_id, event_type, payload, state, occurred_at, created_at, next_attempt_at, traceparent)
        select id, endpoint_id, event_id, event_type, payload, 'PENDING', occurred_at, ${now}, ${now}, traceparent
        from unnest(${column("id")}::text[], ${column("endpointId")}::text[], ${column("eventId")}::text[],
          ${column("eventType")}::text[], ${column("payload")}::text[],
          ${rows.map((row) => row.occurredAt.toISOString())}::timestamptz[], ${column("traceparent") as (string | null)[]}::text[])
          as d (id, endpoint_id, event_id, event_type, payload, occurred_at, traceparent)
        on conflict (endpoint_id, event_id) do nothing returning id, endpoint_id`;
    },
    /**
     * Claims attempts of pending deliveries for this worker, many in one statement (a fetched batch's attempts are
     * claimed together), each with its own `now` and `staleBefore`: only one worker moves attempts_started from
     * attempt - 1 to attempt, and an attempt started before `staleBefore` whose outcome was never recorded (its
     * worker died mid-send) may be claimed again, so it is sent at least once. Answers one claimed attempt or
     * undefined per claim, in their order. Of two claims of one delivery in a batch only the first is tried: the
     * second is refused, as it would be run after the first (its attempt then just started, not stale).
     */
    claimMany: (claims: readonly AttemptClaim[]) => claimMany(sql, claims),
    /**
     * When attempt `attempt` was started, if it was and its outcome was never recorded (the delivery still PENDING):
     * a claim refused for that reason is held by a live worker, or by one whose record failed, and is claimable
     * again once stale. Undefined when the attempt was recorded, settled, or never started.
     */
    async startedUnrecorded(
      deliveryId: string,
      attempt: number,
    ): Promise<{ endpoint_id: string; attempt_started_at: Date } | undefined> {
      const [row] = await sql<{ endpoint_id: string; attempt_started_at: Date }[]>`
        select endpoint_id, attempt_started_at from control.webhook_deliveries
        where id = ${deliveryId} and state = 'PENDING' and attempts_started = ${attempt}
          and attempts_recorded < ${attempt} and attempt_started_at is not null`;
      return row;
    },
    async recordAttempt(row: Omit<AttemptRow, "status_code"> & { status_code?: number }): Promise<void> {
      await sql`
        insert into control.webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, response_excerpt)
        values (${row.delivery_id}, ${row.attempt}, ${row.attempted_at}, ${row.outcome}, ${row.status_code ?? null}, ${row.duration_ms}, ${row.response_excerpt})
        on conflict (delivery_id, attempt) do update set attempted_at = excluded.attempted_at, outcome = excluded.outcome,
          status_code = excluded.status_code, duration_ms = excluded.duration_ms, response_excerpt = excluded.response_excerpt`;
    },
    /**
     * Successes, in one statement (atomic on its own, no transaction around it): each attempt's row, its delivery
     * SUCCEEDED, and its endpoint's failure streak ended. The common outcome: one round trip for every success
     * recorded at once (issue 43), where the failure path (recordAttempt, settle, a retry's enqueue, the streak) takes
     * a transaction of five. At most one row per delivery: a delivery has one attempt running at a time.
     */
    async recordSucceeded(rows: readonly SucceededAttempt[]): Promise<void> {
      if (rows.length === 0) return;
      await sql`
        with input as (
          select * from unnest(${rows.map((row) => row.delivery_id)}::text[], ${rows.map((row) => row.attempt)}::int[],
            ${rows.map((row) => row.attempted_at.toISOString())}::timestamptz[],
            ${rows.map((row) => row.status_code ?? null) as (number | null)[]}::int[],
            ${rows.map((row) => row.duration_ms)}::int[], ${rows.map((row) => row.response_excerpt)}::text[],
            ${rows.map((row) => row.endpoint_id)}::text[])
            as i (delivery_id, attempt, attempted_at, status_code, duration_ms, response_excerpt, endpoint_id)),
        attempt as (
          insert into control.webhook_attempts (delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, response_excerpt)
          select distinct on (delivery_id, attempt) delivery_id, attempt, attempted_at, 'SUCCEEDED', status_code, duration_ms,
            response_excerpt from input
          on conflict (delivery_id, attempt) do update set attempted_at = excluded.attempted_at, outcome = excluded.outcome,
            status_code = excluded.status_code, duration_ms = excluded.duration_ms, response_excerpt = excluded.response_excerpt),
        delivery as (
          update control.webhook_deliveries d set attempts_recorded = i.attempt, state = 'SUCCEEDED', next_attempt_at = null
          from input i where d.id = i.delivery_id),
        streak as (
          update control.webhook_endpoints set failing_since = null
          where id in (select endpoint_id from input) and failing_since is not null)
        select 1`;
    },
    /** Settles the delivery after attempt `attempt`: its new state, and when the next attempt starts (if any). */
    async settle(
      deliveryId: string,
      attempt: number,
      state: DeliveryRow["state"],
      nextAttemptAt: Date | null,
    ): Promise<void> {
      await sql`
        update control.webhook_deliveries set attempts_recorded = ${attempt}, state = ${state}, next_attempt_at = ${nextAttemptAt}
        where id = ${deliveryId}`;
    },
    /** A resend: the delivery pending again, its next attempt numbered after every earlier one. */
    async reopen(deliveryId: string, endpointId: string, now: Date): Promise<DeliveryRow | undefined> {
      const [row] = await sql<DeliveryRow[]>`
        update control.webhook_deliveries d set state = 'PENDING', attempts_recorded = d.attempts_started, next_attempt_at = ${now}
        where d.id = ${deliveryId} and d.endpoint_id = ${endpointId}
        returning ${sql.unsafe(deliveryColumns)}`;
      return row;
    },
    /** A page of an endpoint's deliveries, newest first, after the (created_at, id) of the cursor. */
    async page(endpointId: string, limit: number, after?: { createdAt: Date; id: string }): Promise<DeliveryRow[]> {
      return after
        ? sql<DeliveryRow[]>`
            select ${sql.unsafe(deliveryColumns)} from control.webhook_deliveries d
            where d.endpoint_id = ${endpointId} and (d.created_at, d.id) < (${after.createdAt}, ${after.id})
            order by d.created_at desc, d.id desc limit ${limit}`
        : sql<DeliveryRow[]>`
            select ${sql.unsafe(deliveryColumns)} from control.webhook_deliveries d
            where d.endpoint_id = ${endpointId}
            order by d.created_at desc, d.id desc limit ${limit}`;
    },
    async attemptsOf(deliveryIds: readonly string[]): Promise<AttemptRow[]> {
      if (deliveryIds.length === 0) return [];
      return sql<AttemptRow[]>`
        select delivery_id, attempt, attempted_at, outcome, status_code, duration_ms, response_excerpt
        from control.webhook_attempts where delivery_id = any(${deliveryIds as string[]}::text[])
        order by delivery_id, attempt`;
    },
    async find(deliveryId: string, endpointId: string): Promise<DeliveryRow | undefined> {
      const [row] = await sql<DeliveryRow[]>`
        select ${sql.unsafe(deliveryColumns)} from control.webhook_deliveries d where d.id = ${deliveryId} and d.endpoint_id = ${endpointId}`;
      return row;
    },
  };
}
