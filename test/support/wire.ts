// The /v1 wire as the tests read it: the partner client's types for pages, reports and rows (src/client/types.ts)
// and the spec's partner error envelope. A test says what its call answers (`as ItemPage`); the assertions that read
// the body check it, so a wrong shape fails the test where it is read.
export type * from "../../src/client/types.js";

/** The partner error envelope (spec, "Errors": the partner shape). */
export interface PartnerErrorBody {
  status: "error";
  statusCode: number;
  timestamp: string;
  path: string;
  message: string;
  /** Absent on a validation failure (spec, partner envelope). */
  code?: string;
  params: Record<string, unknown>;
  correlationId: string;
}

/** The developer error envelope (spec, "Errors": the developer shape). */
export interface DeveloperErrorBody {
  error: { code: string; message: string; details: unknown[]; params: Record<string, unknown> };
}

/** The OAuth error body (RFC 6749 5.2) with the catalogue's code beside it (spec, "Errors": the OAuth shape). */
export interface OAuthErrorBody {
  error: string;
  error_description: string;
  code: string;
}
