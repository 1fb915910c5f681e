/**
 * The explorer's access to the API: the typed client (client/) with the token from the session. A
 * `#token=…` link is read once, stored in sessionStorage and removed from the address bar; the fragment
 * never leaves the browser, so the token never reaches the server's logs.
 */
import { createLakeClient, type LakeClient } from "../../client/index.ts";

const KEY = "ducklake-edge-token";

export function takeTokenFromHash(): void {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!m?.[1]) return;
  sessionStorage.setItem(KEY, decodeURIComponent(m[1]));
  const rest = location.hash.replace(/(^#|&)token=[^&]+/, "$1").replace(/^#&/, "#");
  history.replaceState(null, "", `${location.pathname}${location.search}${rest === "#" ? "" : rest}`);
}

export const getToken = (): string | null => sessionStorage.getItem(KEY);
export const setToken = (t: string): void => sessionStorage.setItem(KEY, t);
export const clearToken = (): void => sessionStorage.removeItem(KEY);

export function api(): LakeClient {
  const token = getToken();
  return createLakeClient({ baseUrl: location.origin, ...(token ? { token } : {}) });
}
