// The console RPCs a caller reaches without a console session: they create an account or start a session. Every
// other console handler begins with authenticate (console-context.ts) and answers 401 developer.unauthenticated
// without a session. The OpenAPI document's security of each console route is read from here.

export const sessionFreeConsoleMethods: ReadonlySet<string> = new Set(["SignUp", "VerifyEmail", "RequestPasswordReset", "ResetPassword", "SignIn", "RefreshSession"]);
