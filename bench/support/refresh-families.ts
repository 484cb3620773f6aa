// Refresh families made the way partners make them: the merchant owner signs in on the consent site once, approves
// the app `count` times, and each code is exchanged at /v1/oauth/token. Returns each family's tokens.

interface Client {
  clientId: string;
  clientSecret: string;
}

const cookieHeader = (cookies: Map<string, string>) =>
  [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");

function keepCookies(response: Response, cookies: Map<string, string>): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const index = pair!.indexOf("=");
    cookies.set(pair!.slice(0, index), pair!.slice(index + 1));
  }
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  if (!match) throw new Error(`no hidden ${name} in the page: ${html.slice(0, 500)}`);
  return match[1]!
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

export async function prepareRefreshFamilies(options: {
  front: string;
  auth: string;
  client: Client;
  redirectUri: string;
  owner: { email: string; password: string };
  count: number;
}): Promise<Array<{ accessToken: string; refreshToken: string }>> {
  const { front, auth, client, redirectUri, owner } = options;
  const authorize = `${auth}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: client.clientId, redirect_uri: redirectUri, state: "bench" })}`;
  const cookies = new Map<string, string>();
  const first = await fetch(authorize);
  keepCookies(first, cookies);
  const page = await first.text();
  const signedIn = await fetch(`${auth}/oauth/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: auth },
    body: new URLSearchParams({
      csrf: hidden(page, "csrf"),
      return_to: hidden(page, "return_to"),
      email: owner.email,
      password: owner.password,
    }),
  });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  keepCookies(signedIn, cookies);

  const tokens: Array<{ accessToken: string; refreshToken: string }> = [];
  for (let n = 0; n < options.count; n++) {
    const consent = await fetch(authorize, { headers: { cookie: cookieHeader(cookies) } });
    keepCookies(consent, cookies);
    const html = await consent.text();
    if (consent.status !== 200) throw new Error(`consent answered ${consent.status}: ${html.slice(0, 500)}`);
    const form = new URLSearchParams();
    for (const name of [
      "csrf",
      "response_type",
      "client_id",
      "redirect_uri",
      "state",
      "scope",
      "code_challenge",
      "code_challenge_method",
    ]) {
      if (html.includes(`name="${name}"`)) form.set(name, hidden(html, name));
    }
    form.set("decision", "allow");
    const decided = await fetch(`${auth}/oauth/authorize/decision`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: cookieHeader(cookies), origin: auth },
      body: form,
    });
    if (decided.status !== 302) throw new Error(`decision answered ${decided.status}: ${await decided.text()}`);
    const code = new URL(decided.headers.get("location")!).searchParams.get("code");
    if (!code) throw new Error(`no code in ${decided.headers.get("location")}`);
    const exchanged = await fetch(`${front}/v1/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    });
    if (exchanged.status !== 200)
      throw new Error(`code exchange answered ${exchanged.status}: ${await exchanged.text()}`);
    const answer = (await exchanged.json()) as { access_token: string; refresh_token: string };
    tokens.push({ accessToken: answer.access_token, refreshToken: answer.refresh_token });
  }
  return tokens;
}
