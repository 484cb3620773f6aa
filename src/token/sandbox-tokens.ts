// Sandbox client credentials: what POST /v1/token and the client_credentials grant of /v1/oauth/token share.
// A readable list of named steps: throttle the source address, check the client may use client credentials,
// resolve the merchant (inferred when the organization has exactly one active sandbox merchant), check it is a
// demo merchant this app is granted, check its region is served, sign the same access token the OAuth grants give.
// Decisions: docs/decisions.md, "Sandbox tokens".
import type postgres from "postgres";
import type { Config } from "../config/config.js";
import { serviceError } from "../errors/index.js";
import type { TokenIssuer } from "./issuer.js";
import type { VerifiedClient } from "./client-verifier.js";
import type { Clock } from "../runtime/clock.js";
import { createFixedWindowCounter } from "../storage/fixed-window.js";
import { addressKey } from "../config/ip-addresses.js";
import type { Logger } from "../runtime/logger.js";
import type { Metrics } from "../runtime/metrics.js";
import type { KeyValueStore } from "../storage/key-value.js";
import { ensureLiveGrant, findLiveGrant, findMerchantGrantedTo } from "../grant/index.js";
import { listSandboxMerchants, type Merchant } from "../credential/index.js";
import type { Region } from "../config/regions.js";

/** A signed sandbox access token and the merchant it is for. */
export interface SandboxToken {
  accessToken: string;
  merchant: Merchant;
}

export interface SandboxMinter {
  /**
   * Counts one mint attempt of `address` (IPv6 by its /64) in the current fixed minute (shared store); throws
   * developer.rate_limited (429, Retry-After: seconds to the minute boundary) beyond SANDBOX_TOKEN_RATE_LIMIT.
   */
  admit(address: string): Promise<void>;
  /** Mints for an authenticated client; `merchantId` undefined lets the organization's only sandbox merchant be inferred. */
  mint(client: VerifiedClient, merchantId: number | undefined, dpopJkt?: string): Promise<SandboxToken>;
}

export interface SandboxMinterDeps {
  /** The control database. */
  sql: postgres.Sql;
  config: Pick<Config, "limits" | "servedRegions">;
  clock: Clock;
  logger: Logger;
  issuer: TokenIssuer;
  keyValue: KeyValueStore;
  /** The raising service's full name. */
  domain: string;
  /** Counts the address throttle's refusals (sandbox_address); absent: not counted. */
  metrics?: Metrics;
}

export function createSandboxMinter(deps: SandboxMinterDeps): SandboxMinter {
  const { sql, config, clock, logger, issuer, keyValue, domain } = deps;
  const served = new Set<Region>(config.servedRegions);
  // Like the OAuth throttle: a store outage neither stops minting nor opens the throttle (counted per process).
  const mintsPerMinute = createFixedWindowCounter({
    store: keyValue,
    clock,
    logger,
    name: "sandbox token throttle",
    windowMs: 60_000,
    whenStoreFails: "count-in-process",
  });

  /** Production credentials never use client credentials; ADSR authenticates with API keys in both environments. */
  const checkClientMayMint = (client: VerifiedClient) => {
    if (client.appState === "ARCHIVED") throw serviceError(domain, "developer.app_archived");
    if (client.environment === "PRODUCTION" && client.appState !== "APPROVED")
      throw serviceError(domain, "developer.app_not_approved");
    if (client.product === "ADSR") throw serviceError(domain, "developer.use_api_key");
    if (client.environment === "PRODUCTION") throw serviceError(domain, "developer.use_oauth");
  };

  /**
   * The named merchant (read with whether the app holds a live grant for it: one round trip), or the organization's
   * only active sandbox merchant (whose grant is looked up when checked).
   */
  const resolveMerchant = async (
    client: VerifiedClient,
    merchantId: number | undefined,
  ): Promise<{ merchant: Merchant; granted?: boolean }> => {
    if (merchantId === undefined) {
      const active = (await listSandboxMerchants(sql, client.organizationId)).filter((row) => row.demo && row.active);
      if (active.length !== 1) throw serviceError(domain, "developer.merchant_required");
      return { merchant: active[0]! };
    }
    const found = await findMerchantGrantedTo(sql, merchantId, client.appId);
    if (!found) throw serviceError(domain, "developer.merchant_not_found");
    const { granted, ...merchant } = found;
    return { merchant, granted };
  };

  /**
   * A demo merchant, active, granted to the app. Sandbox grants are automatic within the organization (spec, product
   * table: "granted automatically against the organization's own sandbox merchants"), so a revoked one of the
   * organization's own sandbox merchant is granted again here: the developer reconnects without a browser. Another
   * organization's sandbox merchant stays developer.grant_missing. Decisions: "Sandbox reconnect without a browser".
   */
  const checkMerchant = async (
    client: VerifiedClient,
    { merchant, granted }: { merchant: Merchant; granted?: boolean },
  ) => {
    if (!merchant.demo) throw serviceError(domain, "developer.env_mismatch");
    if (!merchant.active) throw serviceError(domain, "developer.merchant_inactive");
    if (granted ?? (await findLiveGrant(sql, client.appId, merchant.company_id)) !== undefined) return;
    if (merchant.sandbox_organization_id !== client.organizationId)
      throw serviceError(domain, "developer.grant_missing");
    // The grant and its grant.created event in one transaction (src/grant/grant-events.ts).
    await sql.begin((tx) => ensureLiveGrant(tx, client.appId, merchant.company_id, "SANDBOX", new Date(clock.now())));
    logger.info("sandbox grant restored", { clientId: client.clientId, companyId: merchant.company_id });
  };

  const checkRegionServed = (merchant: Merchant) => {
    if (served.has(merchant.region)) return;
    logger.warn("sandbox token refused: the merchant's region is not served here", {
      companyId: merchant.company_id,
      region: merchant.region,
    });
    throw serviceError(domain, "developer.region_unconfigured");
  };

  return {
    async admit(address) {
      const { count, retryAfter } = await mintsPerMinute.hit(`sandbox-token:address:${addressKey(address)}`);
      if (count > config.limits.sandboxTokenPerMinute) {
        deps.metrics?.throttleRefusals.inc({ throttle: "sandbox_address" });
        throw serviceError(domain, "developer.rate_limited", { retryAfter });
      }
    },

    async mint(client, merchantId, dpopJkt) {
      checkClientMayMint(client);
      const resolved = await resolveMerchant(client, merchantId);
      await checkMerchant(client, resolved);
      const { merchant } = resolved;
      checkRegionServed(merchant);
      const key = await issuer.signingKey();
      const target = { companyId: merchant.company_id, region: merchant.region };
      const accessToken = await issuer.mintAccessToken(key, client, target, dpopJkt);
      logger.info("sandbox token minted", { clientId: client.clientId, companyId: merchant.company_id });
      return { accessToken, merchant };
    },
  };
}
