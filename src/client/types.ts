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

export interface Store {
  id: number;
  name: string;
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
  createdAt: string;
  updatedAt: string;
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
}

export interface Category {
  id: number;
  name: string;
  code?: string;
}

export interface CategoryPage {
  categories: Category[];
  nextCursor?: string;
}

export interface CreateCategoryInput {
  name: string;
  code?: string;
}

export interface OrderLine {
  name: string;
  quantity: number;
  totalMinor: number;
  itemCode: string;
  unitPriceMinor: number;
}

export interface OnlineOrder {
  id: number;
  storeId: number;
  status: string;
  totalMinor: number;
  currency: string;
  placedAt: string;
  lines: OrderLine[];
}

/** GET /v1/online-orders: a page of `PageQuery`, narrowed by status and by when the order was placed. */
export interface OnlineOrderQuery extends PageQuery {
  /** Only orders in this status (`PENDING`, `COMPLETED`, ...). */
  status?: string;
  /** RFC 3339 date-time with an offset: only orders placed at or after it. */
  placedFrom?: string;
  /** RFC 3339 date-time with an offset: only orders placed before it (exclusive). */
  placedTo?: string;
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
