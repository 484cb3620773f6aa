// Typed methods for every /v1 business route the server offers (the google.api.http annotations of
// proto/partnerapi/v1/data_service.proto), shared by bearer-token merchants and API-key companies. URLs are
// relative to the credentials' api_base_url; an API-key handle adds `companyId` to every call (query for reads,
// body for writes), as the spec requires.

import { catalogueChanges, type CatalogueChangesOptions } from "./catalogue-feed.js";
import { clientError } from "./errors.js";
import type { Authenticator, HttpCall, Transport } from "./transport.js";
import type {
  CatalogueChange,
  CatalogueResource,
  Category,
  CategoryPage,
  ChangesStart,
  CreateCategoryInput,
  CreateItemInput,
  DailySalesReport,
  Item,
  ItemAvailabilityInput,
  ItemPage,
  ItemQuery,
  OnlineOrder,
  OnlineOrderPage,
  OnlineOrderQuery,
  OrderChange,
  PageQuery,
  PlaceOrderInput,
  ReportWindow,
  SalesByStoreReport,
  Store,
  StorePage,
  UpdateCategoryInput,
  UpdateItemInput,
} from "./types.js";

/** Per-call options. */
export interface CallOptions {
  /** Overrides the client's `Accept-Language` for this call (the language of error messages). */
  acceptLanguage?: string;
  /** Aborts the call, including any wait between attempts that has not started yet. */
  signal?: AbortSignal;
}

/** The business routes of one merchant. Every method throws PartnerApiError on failure. */
export interface BusinessRoutes {
  stores: {
    /** GET /v1/stores */
    list(query?: PageQuery, options?: CallOptions): Promise<StorePage>;
    /** GET /v1/stores/{id}; `partner.store_not_found` when the merchant has no such store. */
    get(id: number, options?: CallOptions): Promise<Store>;
  };
  items: {
    /** GET /v1/items; with `storeId`, each item's availability in that store. */
    list(query?: ItemQuery, options?: CallOptions): Promise<ItemPage>;
    /** GET /v1/items/{id}; `partner.item_not_found` when it is not on the menu. */
    get(id: number, query?: { storeId?: number }, options?: CallOptions): Promise<Item>;
    /** DELETE /v1/items/{id}: the item leaves the menu (orders keep their lines). A write: retried like create. */
    remove(id: number, options?: CallOptions): Promise<void>;
    /** PUT /v1/stores/{storeId}/items/{itemId}/availability: sold out in one store, or selling again. */
    setAvailability(
      storeId: number,
      itemId: number,
      input: ItemAvailabilityInput,
      options?: CallOptions,
    ): Promise<Item>;
    /** Every item, page after page (GET /v1/items with `cursor`). */
    all(query?: Omit<ItemQuery, "cursor">, options?: CallOptions): AsyncIterable<Item>;
    /** POST /v1/items. Not idempotent: sent again only when nothing can have been written (no response, 401, 429, company.not_provisioned). */
    create(input: CreateItemInput, options?: CallOptions): Promise<Item>;
    /** PATCH /v1/items/{id}: changes the fields given. A write: retried like create. */
    update(id: number, input: UpdateItemInput, options?: CallOptions): Promise<Item>;
  };
  categories: {
    /** GET /v1/categories */
    list(query?: PageQuery, options?: CallOptions): Promise<CategoryPage>;
    /** POST /v1/categories. Not idempotent. */
    create(input: CreateCategoryInput, options?: CallOptions): Promise<Category>;
    /** PATCH /v1/categories/{id}: its name, code, sortOrder, or its items' order (itemIds). A write: retried like create. */
    update(id: number, input: UpdateCategoryInput, options?: CallOptions): Promise<Category>;
  };
  catalogue: {
    /**
     * A catalogue change feed (GET /v1/items, /v1/stores or /v1/categories with updatedFrom, then cursor): every
     * change of that list since `start`, in (updatedAt, id) order, each with the cursor to keep; deleted items as
     * tombstones ({ id, deleted: true, updatedAt }). Ends at the first empty page unless `follow` is given. Keep one
     * cursor per resource: a cursor of one feed is refused by another (400 partner.feed_cursor_invalid).
     */
    changes<R extends CatalogueResource>(
      resource: R,
      start: ChangesStart,
      options?: CatalogueChangesOptions,
    ): AsyncIterable<CatalogueChange<R>>;
  };
  onlineOrders: OnlineOrderRoutes;
  /** The online-order routes (the same object as onlineOrders). */
  orders: OnlineOrderRoutes;
  reports: {
    /** GET /v1/reports/daily-sales */
    dailySales(window: ReportWindow, options?: CallOptions): Promise<DailySalesReport>;
    /** GET /v1/reports/sales-by-store */
    salesByStore(window: ReportWindow, options?: CallOptions): Promise<SalesByStoreReport>;
  };
}

/** The online orders of one merchant: read, place, cancel, follow. */
export interface OnlineOrderRoutes {
  /** GET /v1/online-orders: oldest placed first (keyset on placedAt, id), optionally one status and a window of `placedAt`. */
  list(query?: OnlineOrderQuery, options?: CallOptions): Promise<OnlineOrderPage>;
  /** Every order the query matches, page after page (GET /v1/online-orders with `cursor`). */
  all(query?: Omit<OnlineOrderQuery, "cursor">, options?: CallOptions): AsyncIterable<OnlineOrder>;
  /** GET /v1/online-orders/{id}; `partner.order_not_found` when the merchant has no such order. */
  get(id: number, options?: CallOptions): Promise<OnlineOrder>;
  /**
   * POST /v1/online-orders: places an order (PENDING), priced from the catalogue. Not idempotent and never retried
   * once it may have reached the server: after a network error, call findByReference before placing it again.
   */
  place(input: PlaceOrderInput, options?: CallOptions): Promise<OnlineOrder>;
  /** POST /v1/online-orders/{id}/cancel: your own PENDING order (409 partner.order_status_conflict otherwise). */
  cancel(id: number, options?: CallOptions): Promise<OnlineOrder>;
  /** Your app's orders with this externalReference (GET /v1/online-orders?externalReference=...): how to reconcile. */
  findByReference(externalReference: string, options?: CallOptions): Promise<OnlineOrder[]>;
  /**
   * The change feed (GET /v1/online-orders?updatedFrom=... then ?cursor=...): every order changed since `start`, each
   * time it changes, in (updatedAt, id) order, with the cursor to resume from. Ends at the first empty page, unless
   * `follow` is given: then it waits `follow.intervalMs` (default 10 s) and polls again, until `signal` aborts.
   */
  changes(
    start: ChangesStart,
    options?: CallOptions & { limit?: number; follow?: { intervalMs?: number } },
  ): AsyncIterable<OrderChange>;
}

/** Waits `ms`, or less when `signal` aborts (then the iterator ends). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done);
  });
}

export interface BusinessRoutesOptions {
  transport: Transport;
  auth: Authenticator;
  /** API keys: the company every call names. Bearer tokens name their merchant themselves. */
  companyId?: number | undefined;
}

const field = <T>(body: Record<string, unknown>, name: string, path: string): T => {
  const value = body[name];
  if (typeof value !== "object" || value === null)
    throw clientError("client.bad_response", `${path} answered without ${name}`);
  return value as T;
};

/** The names of T's array fields. */
type ArrayFieldOf<T> = { [K in keyof T]-?: T[K] extends readonly unknown[] ? K : never }[keyof T] & string;

/**
 * A list's page or a report: `rows` (the page's rows, the report's days or stores) must be an array, or the answer is
 * not the route's and fails here as client.bad_response rather than later in the caller's loop. The rows themselves
 * are the server's wire, typed in types.ts and not checked field by field (the client carries no schema library).
 */
const withRows = <T extends object>(body: Record<string, unknown>, rows: ArrayFieldOf<T>, path: string): T => {
  if (!Array.isArray(body[rows])) throw clientError("client.bad_response", `${path} answered without ${rows}`);
  return body as T;
};

const pathId = (id: number, what: string) => {
  if (!Number.isSafeInteger(id) || id < 1) throw new RangeError(`${what} must be a positive integer, got ${id}`);
  return String(id);
};

/** Every row of a keyset-paged list, page after page, following `nextCursor` until a page has none. */
async function* everyPage<P extends { nextCursor?: string }, T>(
  fetchPage: (cursor: { cursor?: string }) => Promise<P>,
  rows: (page: P) => T[],
): AsyncIterable<T> {
  let cursor: string | undefined;
  do {
    const next = await fetchPage(cursor === undefined ? {} : { cursor });
    yield* rows(next);
    cursor = next.nextCursor;
  } while (cursor !== undefined);
}

export function createBusinessRoutes(options: BusinessRoutesOptions): BusinessRoutes {
  const { transport, auth, companyId } = options;
  const send = (
    method: HttpCall["method"],
    path: string,
    input: { query?: Record<string, string | number | undefined>; body?: Record<string, unknown> },
    call: CallOptions = {},
  ) =>
    transport.send({
      method,
      path,
      query: method === "GET" && companyId !== undefined ? { companyId, ...input.query } : input.query,
      body: input.body !== undefined && companyId !== undefined ? { companyId, ...input.body } : input.body,
      write: method !== "GET",
      partner: true,
      auth,
      acceptLanguage: call.acceptLanguage,
      signal: call.signal,
    });
  const page = (query: PageQuery = {}) => ({ limit: query.limit, cursor: query.cursor });

  const routes: BusinessRoutes = {
    stores: {
      list: async (query, call) =>
        withRows<StorePage>(await send("GET", "stores", { query: page(query) }, call), "stores", "GET /v1/stores"),
      get: async (id, call) =>
        field<Store>(await send("GET", `stores/${pathId(id, "store id")}`, {}, call), "store", "GET /v1/stores/{id}"),
    },
    items: {
      list: async (query, call) =>
        withRows<ItemPage>(
          await send("GET", "items", { query: { ...page(query), storeId: query?.storeId } }, call),
          "items",
          "GET /v1/items",
        ),
      get: async (id, query, call) =>
        field<Item>(
          await send("GET", `items/${pathId(id, "item id")}`, { query: { storeId: query?.storeId } }, call),
          "item",
          "GET /v1/items/{id}",
        ),
      remove: async (id, call) => {
        await send("DELETE", `items/${pathId(id, "item id")}`, {}, call);
      },
      setAvailability: async (storeId, itemId, input, call) =>
        field<Item>(
          await send(
            "PUT",
            `stores/${pathId(storeId, "store id")}/items/${pathId(itemId, "item id")}/availability`,
            { body: { ...input } },
            call,
          ),
          "item",
          "PUT /v1/stores/{storeId}/items/{itemId}/availability",
        ),
      all: (query, call) =>
        everyPage(
          (cursor) => routes.items.list({ ...query, ...cursor }, call),
          (next) => next.items,
        ),
      create: async (input, call) =>
        field<Item>(await send("POST", "items", { body: { ...input } }, call), "item", "POST /v1/items"),
      update: async (id, input, call) =>
        field<Item>(
          await send("PATCH", `items/${pathId(id, "item id")}`, { body: { ...input } }, call),
          "item",
          "PATCH /v1/items/{id}",
        ),
    },
    categories: {
      list: async (query, call) =>
        withRows<CategoryPage>(
          await send("GET", "categories", { query: page(query) }, call),
          "categories",
          "GET /v1/categories",
        ),
      create: async (input, call) =>
        field<Category>(
          await send("POST", "categories", { body: { ...input } }, call),
          "category",
          "POST /v1/categories",
        ),
      update: async (id, input, call) =>
        field<Category>(
          await send("PATCH", `categories/${pathId(id, "category id")}`, { body: { ...input } }, call),
          "category",
          "PATCH /v1/categories/{id}",
        ),
    },
    catalogue: {
      changes: (resource, start, options) =>
        catalogueChanges((path, query, call) => send("GET", path, { query }, call), resource, start, options),
    },
    onlineOrders: {
      list: async (query = {}, call) =>
        withRows<OnlineOrderPage>(
          await send(
            "GET",
            "online-orders",
            {
              query: {
                ...page(query),
                status: query.status,
                placedFrom: query.placedFrom,
                placedTo: query.placedTo,
                externalReference: query.externalReference,
              },
            },
            call,
          ),
          "orders",
          "GET /v1/online-orders",
        ),
      all: (query, call) =>
        everyPage(
          (cursor) => routes.onlineOrders.list({ ...query, ...cursor }, call),
          (next) => next.orders,
        ),
      get: async (id, call) =>
        field<OnlineOrder>(
          await send("GET", `online-orders/${pathId(id, "order id")}`, {}, call),
          "order",
          "GET /v1/online-orders/{id}",
        ),
      place: async (input, call) =>
        field<OnlineOrder>(
          await send("POST", "online-orders", { body: { ...input } }, call),
          "order",
          "POST /v1/online-orders",
        ),
      cancel: async (id, call) =>
        field<OnlineOrder>(
          await send("POST", `online-orders/${pathId(id, "order id")}/cancel`, { body: {} }, call),
          "order",
          "POST /v1/online-orders/{id}/cancel",
        ),
      findByReference: async (externalReference, call) =>
        (await routes.onlineOrders.list({ externalReference, limit: 100 }, call)).orders,
      changes: (start, options = {}) => feed(start, options),
    },
    get orders() {
      return routes.onlineOrders;
    },
    reports: {
      dailySales: async (window, call) =>
        withRows<DailySalesReport>(
          await send("GET", "reports/daily-sales", { query: { from: window.from, to: window.to } }, call),
          "days",
          "GET /v1/reports/daily-sales",
        ),
      salesByStore: async (window, call) =>
        withRows<SalesByStoreReport>(
          await send("GET", "reports/sales-by-store", { query: { from: window.from, to: window.to } }, call),
          "stores",
          "GET /v1/reports/sales-by-store",
        ),
    },
  };
  /** The change feed's pages, order by order, each with the cursor to resume from once it is handled. */
  async function* feed(
    start: ChangesStart,
    options: CallOptions & { limit?: number; follow?: { intervalMs?: number } },
  ): AsyncIterable<OrderChange> {
    let asked: string | undefined = "cursor" in start ? start.cursor : undefined;
    const call = { acceptLanguage: options.acceptLanguage, signal: options.signal };
    for (;;) {
      const query =
        asked === undefined ? { updatedFrom: (start as { updatedFrom: string }).updatedFrom } : { cursor: asked };
      const next = withRows<OnlineOrderPage>(
        await send("GET", "online-orders", { query: { ...query, limit: options.limit } }, call),
        "orders",
        "GET /v1/online-orders",
      );
      if (typeof next.nextCursor !== "string")
        throw clientError("client.bad_response", "GET /v1/online-orders answered a feed page without nextCursor");
      for (const [index, order] of next.orders.entries())
        yield { order, cursor: index === next.orders.length - 1 ? next.nextCursor : asked };
      asked = next.nextCursor;
      // Aborted while the caller handled a change: the feed ends there (the caller holds its cursor).
      if (options.signal?.aborted) return;
      if (next.orders.length > 0) continue;
      if (!options.follow || options.signal?.aborted) return;
      await pause(options.follow.intervalMs ?? 10_000, options.signal);
      if (options.signal?.aborted) return;
    }
  }
  return routes;
}
