import { randomBytes } from "node:crypto";
import { escapeHtml, page } from "./html.js";

export const SITE_USERNAME = "alice";
export const SITE_PASSWORD = "s3cret-pass-123";
export const SESSION_COOKIE = "site_session";
/** Set by the login flow only: proves localStorage survived when a profile is restored. */
export const DEVICE_STORAGE_KEY = "remembered_device";
export const DEVICE_STORAGE_VALUE = "device-of-alice";

export function loginPage(error?: string): string {
  return page(
    "Sign in",
    `${error ? `<p role="alert">${escapeHtml(error)}</p>` : ""}
<form method="post" action="/login">
  <label>User name <input type="text" name="username" placeholder="User name"></label>
  <label>Password <input type="password" name="password" placeholder="Password"></label>
  <button type="submit">Sign in</button>
</form>`,
  );
}

/**
 * `?welcome=1` is only reached through a successful login; the page then stores the device item
 * and drops the query, so the URL the agent sees is plain /account.
 */
export function accountPage(username: string): string {
  return page(
    "Account",
    `<p>Signed in as ${escapeHtml(username)}</p>
<p>Plan: Pro</p>
<p>Credits: 42</p>
<p>Remembered device: <span id="device">no</span></p>
<p><a href="/products">Products</a> <a href="/logout">Log out</a></p>
<script>
  const params = new URLSearchParams(location.search);
  if (params.has("welcome")) {
    localStorage.setItem(${JSON.stringify(DEVICE_STORAGE_KEY)}, ${JSON.stringify(DEVICE_STORAGE_VALUE)});
    history.replaceState(null, "", "/account");
  }
  document.getElementById("device").textContent =
    localStorage.getItem(${JSON.stringify(DEVICE_STORAGE_KEY)}) ? "yes" : "no";
</script>`,
  );
}

/** Session tokens of one site instance. */
export class SessionStore {
  private readonly users = new Map<string, string>();

  create(username: string): string {
    const token = randomBytes(16).toString("hex");
    this.users.set(token, username);
    return token;
  }

  userOf(cookieHeader: string | undefined): string | undefined {
    const token = parseCookies(cookieHeader).get(SESSION_COOKIE);
    return token === undefined ? undefined : this.users.get(token);
  }

  remove(cookieHeader: string | undefined): void {
    const token = parseCookies(cookieHeader).get(SESSION_COOKIE);
    if (token !== undefined) this.users.delete(token);
  }
}

function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? "").split(";")) {
    const [name, ...value] = pair.trim().split("=");
    if (name) cookies.set(name, value.join("="));
  }
  return cookies;
}
