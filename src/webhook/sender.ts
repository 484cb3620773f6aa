// One delivery attempt: POST the signed body, with no redirect followed (Node's client never follows one; a 3xx is
// a failure), the address checked as it is connected to (DNS rebinding cannot get around the policy), the whole
// attempt bounded by one deadline (a receiver that never answers, trickles its headers or its body is cut there),
// headers bounded by maxHeaderSize, and at most a few KiB of the answer read (only its first 256 characters kept).
// Success is a 2xx whose body ended as its head said (or reached the read bound) within the deadline: an answer cut
// off mid-body is a connection error, retried like one.
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { connectionAllowed, type AddressPolicy } from "./address-policy.js";
import { bareHost, portOf, type ResolveHost } from "./endpoint-url.js";

export type AttemptOutcome = "SUCCEEDED" | "HTTP_ERROR" | "TIMEOUT" | "CONNECTION_ERROR" | "ADDRESS_REFUSED";

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode?: number;
  durationMs: number;
  /** The start of the answer's body, at most `excerptChars` characters. */
  excerpt: string;
}

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: AddressPolicy;
  resolve: ResolveHost;
}

/** Bytes of an answer read at most; the rest is never read (the connection is closed). */
export const responseReadLimit = 4096;
/** Characters of the answer kept (deliveries list, console). */
export const excerptChars = 256;
/** Node's default is 16 KiB; a receiver's headers need far less, and a flood fails sooner. */
const maxHeaderBytes = 8192;

class RefusedAddress extends Error {
  override name = "RefusedAddress";
}
class Deadline extends Error {
  override name = "Deadline";
}

export function sendWebhook(options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(options.url);
  const port = portOf(url);
  const host = bareHost(url);
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    // An IP literal is never looked up: check it here. A name goes through `guardedLookup`.
    if (isIP(host) && !connectionAllowed(host, port, options.policy))
      return finish({ outcome: "ADDRESS_REFUSED", excerpt: "" });
    const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
      const name = hostname === "localhost" ? Promise.resolve(["127.0.0.1"]) : options.resolve(hostname);
      name.then(
        (addresses) => {
          const allowed = addresses.find((address) => connectionAllowed(address, port, options.policy));
          if (!allowed) return callback(new RefusedAddress(`${hostname} resolves to no allowed address`), "", 0);
          const family = isIP(allowed);
          if (lookupOptions.all) return callback(null, [{ address: allowed, family }]);
          callback(null, allowed, family);
        },
        (error: NodeJS.ErrnoException) => callback(error, "", 0),
      );
    };
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(url, {
      method: "POST",
      headers: {
        ...options.headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(options.body)),
        "user-agent": "partner-api-webhooks/1",
      },
      lookup: guardedLookup,
      agent: false,
      maxHeaderSize: maxHeaderBytes,
    });
    const timer = setTimeout(() => request.destroy(new Deadline("deadline")), options.timeoutMs);
    // The address connected to, checked before a byte of the body leaves (writes wait for the connection).
    request.on("socket", (socket) => {
      socket.once("connect", () => {
        const remote = socket.remoteAddress;
        if (!remote || !connectionAllowed(remote, socket.remotePort ?? port, options.policy))
          request.destroy(new RefusedAddress("connected address refused"));
      });
    });
    request.on("error", (error) => {
      if (error instanceof RefusedAddress) return finish({ outcome: "ADDRESS_REFUSED", excerpt: "" });
      if (error instanceof Deadline) return finish({ outcome: "TIMEOUT", excerpt: "" });
      finish({ outcome: "CONNECTION_ERROR", excerpt: "" });
    });
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      let read = 0;
      const status = response.statusCode ?? 0;
      const excerpt = () => Buffer.concat(chunks).toString("utf8").slice(0, excerptChars);
      /** The answer as far as it matters: whole, or its first responseReadLimit bytes (the rest is not read). */
      const answered = () => {
        finish({
          outcome: status >= 200 && status < 300 ? "SUCCEEDED" : "HTTP_ERROR",
          statusCode: status,
          excerpt: excerpt(),
        });
        request.destroy();
      };
      /**
       * The connection closed before the body its head announced (Content-Length, chunked) was all there: a
       * receiver that died mid-answer is a failure, whatever its status line said (RFC 9112 §8: an incomplete
       * message). Its status is kept for the deliveries list.
       */
      const cut = () => finish({ outcome: "CONNECTION_ERROR", statusCode: status, excerpt: excerpt() });
      response.on("data", (chunk: Buffer) => {
        if (read < responseReadLimit) chunks.push(chunk.subarray(0, responseReadLimit - read));
        read += chunk.length;
        if (read >= responseReadLimit) answered();
      });
      response.on("end", () => (response.complete ? answered() : cut()));
      response.on("error", cut);
      response.on("aborted", cut);
    });
    request.end(options.body);
  });
}
