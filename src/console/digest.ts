// The console's one digest: SHA-256, base64url. Tokens are stored by it, and emails become counter keys by it, so no
// key names an address and no stored value is a usable token.
import { createHash } from "node:crypto";

export const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");
