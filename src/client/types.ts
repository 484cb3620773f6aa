// The JSON of the business routes, as the /v1 wire carries it (proto/partnerapi/v1/data_service.proto, with the
// wire choices of docs/decisions.md: lowerCamel names, 64-bit integers as JSON numbers, money in minor units).

/** Paging of every list route: `limit` 1 to 100 (default 10) and the opaque `nextCursor` of the previous page. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/** A report window: dates as `YYYY-MM-DD`, `to` not before `from`, at most 31 days. */
export interface ReportWindow {
  from: string;
  to: string;
}

/** Where a store is; `country` is ISO 3166-1 alpha-2. */
export interface StoreAddress {
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postcode?: string;
  country: string;
}

export type Weekday = "MONDAY" | "TUESDAY" | "WEDNESDAY" | "THURSDAY" | "FRIDAY" | "SATURDAY" | "SUNDAY";

/** Local `HH:MM` times; a close at or before the open runs past midnight, `00:00` to `24:00` is the whole day. */
export interface TimeRange {
  open: string;
  close: string;
}

/** A week of ranges (a day not listed is closed) and the dates that differ from it (no ranges: closed that day). */
export interface OpeningHours {
  weekly: Array<{ day: Weekday; ranges: TimeRange[] }>;
  exceptions: Array<{ date: string; ranges: TimeRange[]; note?: string }>;
}

/** PAUSED until the point of sale resumes, or until `pausedUntil` when present (then it reads ACCEPTING). */
export interface OnlineOrdering {
  status: OnlineOrderingStatus;
  pausedUntil?: string;
  reason?: string;
}

export interface Store {
  id: number;
  name: string;
  /** Absent until the point of sale gives it. */
  address?: StoreAddress;
  /** IANA time zone name: the zone of `openingHours`. */
  timeZone: string;
  /** Absent when the store has not published hours. */
  openingHours?: OpeningHours;
  onlineOrdering: OnlineOrdering;
  updatedAt: string;
}

export interface StorePage {
  stores: Store[];
  /** Present only when more rows may follow. */
  nextCursor?: string;
}

export interface Item {
  id: number;
  name: string;
  code: string;
  barcode?: string;
  categoryId?: number;
  /** Price in the currency's minor unit. */
  priceMinor: number;
  currency: string;
  description?: string;
  /** Only when the read names a store (`storeId`): whether it sells there now. */
  available?: boolean;
  /** With `available: false`: when it sells again by itself; absent for sold out until further notice. */
  unavailableUntil?: string;
  /** Its choices (size, extras), in menu order; empty for an item sold as it is. */
  modifierGroups: ModifierGroup[];
  /** Only in the change feed and item.deleted: the item left the menu (a tombstone). */
  deleted?: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A customer picks from `minSelections` (1 or more: required) to `maxSelections` of its modifiers. */
export interface ModifierGroup {
  id: number;
  name: string;
  minSelections: number;
  maxSelections: number;
  modifiers: Modifier[];
}

export interface Modifier {
  id: number;
  name: string;
  /** Added to the item's price, in its currency's minor unit. */
  priceMinor: number;
  /** As Item.available: only when the read names a store. */
  available?: boolean;
  unavailableUntil?: string;
}

/** A modifier group as a write gives it (no ids at creation). */
export interface ModifierGroupInput {
  name: string;
  minSelections?: number;
  maxSelections: number;
  modifiers: Array<{ name: string; priceMinor: number }>;
}

/** A list of items, with their availability in `storeId` when given. */
export interface ItemQuery extends PageQuery {
  storeId?: number;
}

/** Sold out in one store (`available: false`, optionally until a time) or selling again. */
export interface ItemAvailabilityInput {
  available: boolean;
  unavailableUntil?: string;
}

export interface ItemPage {
  items: Item[];
  nextCursor?: string;
}

export interface CreateItemInput {
  name: string;
  code: string;
  barcode?: string;
  categoryId?: number;
  priceMinor: number;
  /** ISO 4217; the merchant's currency when omitted. */
  currency?: string;
  description?: string;
  modifierGroups?: ModifierGroupInput[];
}

/** The fields to change; absent fields are left as they are. */
export interface UpdateItemInput {
  name?: string;
  code?: string;
  barcode?: string;
  categoryId?: number;
  /** In the minor unit of the item's currency (after this change, when `currency` changes too). */
  priceMinor?: number;
  /** ISO 4217: corrects the item's currency; send `priceMinor` with it when the minor units differ. */
  currency?: string;
  description?: string;
}

export interface Category {
  id: number;
  name: string;
  code?: string;
  /** Its place on the menu: lower first (then id); 0 unless set. */
  sortOrder: number;
  /** The ids of its items on the menu, in menu order. */
  itemIds: number[];
  /** When it last changed (RFC 3339, microseconds): its fields, its items' order, or which items it holds. */
  updatedAt: string;
}

export interface CategoryPage {
  categories: Category[];
  nextCursor?: string;
}

export interface CreateCategoryInput {
  name: string;
  code?: string;
  /** 0 to 1,000,000; 0 when omitted. */
  sortOrder?: number;
}

/** PATCH /v1/categories/{id}: the fields to change; absent fields are left as they are. */
export interface UpdateCategoryInput {
  name?: string;
  code?: string;
  sortOrder?: number;
  /**
   * The category's items on the menu in their new order: exactly its items, each once (409
   * partner.category_items_mismatch otherwise). An item joins or leaves a category through its own categoryId.
   */
  itemIds?: number[];
}

/** The catalogue's change feeds: GET /v1/items, /v1/stores or /v1/categories with updatedFrom, then cursor. */
export const catalogueResources = ["items", "stores", "categories"] as const;
export type CatalogueResource = (typeof catalogueResources)[number];

/** An item that left the menu, as the items' feed gives it: only these fields are meaningful. */
export interface ItemTombstone {
  id: number;
  deleted: true;
  /** When it was deleted (the feed's order). */
  updatedAt: string;
}

/** An item on the menu, as a feed gives it (never `deleted`): tell it from a tombstone by `deleted`. */
export type LiveItem = Item & { deleted?: undefined };

/** What each catalogue feed gives: the resource as it is now, or (items only) a tombstone. */
export interface CatalogueFeedValues {
  items: LiveItem | ItemTombstone;
  stores: Store;
  categories: Category;
}

/** One change a catalogue feed gave, and where to resume once it is handled (as OrderChange's cursor). */
export interface CatalogueChange<R extends CatalogueResource = CatalogueResource> {
  resource: R;
  value: CatalogueFeedValues[R];
  /**
   * Save this once the change is handled and pass it back ({ cursor }) to resume this feed: nothing after it is
   * missed. Within a page it is the cursor the page was asked with (undefined on the very first page), so a resumed
   * feed may give the rest of that page again; handle changes idempotently, by id and updatedAt.
   */
  cursor: string | undefined;
}

export interface OrderLine {
  name: string;
  quantity: number;
  totalMinor: number;
  itemCode: string;
  unitPriceMinor: number;
  note?: string;
  /** The choices for each one of the line's items, copied at placing; totalMinor includes them. Empty: none. */
  modifiers: OrderLineModifier[];
}

/** A modifier of an order line as it was when the order was placed: its price for one, how many per item. */
export interface OrderLineModifier {
  name: string;
  priceMinor: number;
  quantity: number;
}

/** Whether a store takes online orders now (the proto's OnlineOrderingStatus). */
export const onlineOrderingStatuses = ["ACCEPTING", "PAUSED"] as const;
export type OnlineOrderingStatus = (typeof onlineOrderingStatuses)[number];

/** How an order reaches the customer (the proto's FulfilmentType). */
export const fulfilmentTypes = ["PICKUP", "DELIVERY"] as const;
export type FulfilmentType = (typeof fulfilmentTypes)[number];

export interface DeliveryAddress {
  line1: string;
  line2?: string;
  city: string;
  postcode: string;
  instructions?: string;
}

export interface Fulfilment {
  type: FulfilmentType;
  /** Required for DELIVERY, absent for PICKUP. */
  deliveryAddress?: DeliveryAddress;
}

export interface Customer {
  name: string;
  /** Required for a DELIVERY order (400 partner.order_customer_phone_required). */
  phone?: string;
}

/** Every status an online order can be in (the API guide's lifecycle table); PENDING is the one it is created in. */
export const onlineOrderStatuses = ["PENDING", "ACCEPTED", "REJECTED", "READY", "COMPLETED", "CANCELLED"] as const;
export type OnlineOrderStatus = (typeof onlineOrderStatuses)[number];

/** Why an order was REJECTED or CANCELLED. */
export const onlineOrderReasons = [
  "ITEM_UNAVAILABLE",
  "STORE_CLOSED",
  "TOO_BUSY",
  "CANNOT_DELIVER",
  "CUSTOMER_REQUEST",
  "CUSTOMER_NO_SHOW",
  "OTHER",
  "TIMED_OUT",
  "PARTNER_CANCELLED",
] as const;
export type OnlineOrderReason = (typeof onlineOrderReasons)[number];

export interface OnlineOrder {
  id: number;
  storeId: number;
  status: OnlineOrderStatus;
  totalMinor: number;
  currency: string;
  placedAt: string;
  lines: OrderLine[];
  /** When it last changed (RFC 3339, microseconds): the change feed's order. */
  updatedAt: string;
  /** Absent on orders from before online ordering took orders (the seeded ones). */
  fulfilment?: Fulfilment;
  customer?: Customer;
  externalReference?: string;
  note?: string;
  requestedFor?: string;
  promisedFor?: string;
  /** Why it was REJECTED or CANCELLED. */
  reason?: OnlineOrderReason;
  /** While PENDING: when the platform rejects it (TIMED_OUT) unless the merchant decides first. */
  decideBy?: string;
}

/** POST /v1/online-orders: what the customer chose; the platform prices it from the catalogue. */
export interface PlaceOrderInput {
  storeId: number;
  /**
   * 1 to 50 lines; quantity 1 to 99. `modifiers`: the item's own (its modifierGroups), each group's selections from
   * its minSelections to its maxSelections; quantity (default 1) is per one of the line's items.
   */
  lines: Array<{
    itemId: number;
    quantity: number;
    note?: string;
    modifiers?: Array<{ modifierId: number; quantity?: number }>;
  }>;
  fulfilment: Fulfilment;
  customer: Customer;
  note?: string;
  /** RFC 3339, from now to 7 days ahead (400 partner.order_requested_for_out_of_range); absent: as soon as possible. */
  requestedFor?: string;
  /** Your own id of the order: how you find it again after a network error (orders.findByReference). */
  externalReference: string;
}

/** Where orders.changes starts: a time (the feed's updatedFrom, inclusive), or a cursor you kept. */
export type ChangesStart = { updatedFrom: string } | { cursor: string };

/** One change the feed gave: the order as it is now, and where to resume once it is handled. */
export interface OrderChange {
  order: OnlineOrder;
  /**
   * Save this once the order is handled and pass it back ({ cursor }) to resume: nothing after it is missed. Within
   * a page it is the cursor the page was asked with (undefined on the very first page: resume from your updatedFrom),
   * so a resumed feed may give the rest of that page again; handle changes idempotently, by id and updatedAt.
   */
  cursor: string | undefined;
}

/** GET /v1/online-orders: a page of `PageQuery`, narrowed by status and by when the order was placed. */
export interface OnlineOrderQuery extends PageQuery {
  /** Only orders in this status. */
  status?: OnlineOrderStatus;
  /** RFC 3339 date-time with an offset: only orders placed at or after it. */
  placedFrom?: string;
  /** RFC 3339 date-time with an offset: only orders placed before it (exclusive). */
  placedTo?: string;
  /** Only your app's orders with this externalReference. */
  externalReference?: string;
}

export interface OnlineOrderPage {
  orders: OnlineOrder[];
  nextCursor?: string;
}

export interface DailySales {
  date: string;
  saleCount: number;
  totalMinor: number;
  itemCount: number;
}

export interface DailySalesReport {
  from: string;
  to: string;
  currency: string;
  /** Every UTC day of the window, zero when nothing sold. */
  days: DailySales[];
}

export interface StoreSales {
  storeId: number;
  storeName: string;
  saleCount: number;
  itemCount: number;
  totalMinor: number;
}

export interface SalesByStoreReport {
  from: string;
  to: string;
  currency: string;
  /** Every store of the merchant, zero when nothing sold. */
  stores: StoreSales[];
}
