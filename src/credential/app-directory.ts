// Apps, their client ids and organizations as other owners and the edges read them (the consent screen, the grant
// owner's checks, the console). Plain records and functions: each read runs on the `sql` it is given (the pool, or
// the caller's transaction when the read must lock or see within it).
import type { SqlClient } from "../storage/sql-client.js";
import { createAppQueries, type AppRow } from "./queries/app-queries.js";
import { createCredentialQueries, type ClientWithApp } from "./queries/credential-queries.js";
import { createOrganizationQueries, type OrganizationRow } from "./queries/organization-queries.js";

/** An app: its organization, product, review state, pending name and public links. */
export type App = AppRow;

/** A live client id with the app it belongs to (product, state, organization). */
export type RegisteredClient = ClientWithApp;

/** An organization: id and name. */
export type Organization = OrganizationRow;

/** The app of `appId`; undefined when there is none. */
export function findApp(sql: SqlClient, appId: string): Promise<App | undefined> {
  return createAppQueries(sql).find(appId);
}

/** The app of `appId`, its row locked until `tx` ends: orders the caller's change after any review or archive. */
export function lockApp(tx: SqlClient, appId: string): Promise<App | undefined> {
  return createAppQueries(tx).lock(appId);
}

/** The ids of an organization's apps. */
export function appIdsOfOrganization(sql: SqlClient, organizationId: number): Promise<string[]> {
  return createAppQueries(sql).idsOfOrganization(organizationId);
}

/** The redirect URIs registered for an app (exact strings, compared exactly). */
export function redirectUrisOfApp(sql: SqlClient, appId: string): Promise<string[]> {
  return createAppQueries(sql).redirectUris(appId);
}

/** A live client id and its app; undefined when unknown or revoked. No secret is checked here. */
export function findClient(sql: SqlClient, clientId: string): Promise<RegisteredClient | undefined> {
  return createCredentialQueries(sql).findClient(clientId);
}

/** The organization of `organizationId`; undefined when there is none. */
export function findOrganization(sql: SqlClient, organizationId: number): Promise<Organization | undefined> {
  return createOrganizationQueries(sql).find(organizationId);
}

/** Makes an organization (on the caller's transaction, so its first member commits with it). */
export function insertOrganization(sql: SqlClient, name: string, now: Date): Promise<Organization> {
  return createOrganizationQueries(sql).insert(name, now);
}
