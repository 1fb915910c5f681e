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

/**
 * A lake data file as hyparquet's AsyncBuffer: each slice is one ranged GET of the data route with the
 * token, so a preview fetches the footer and the first pages, not the file.
 */
export function dataFileBuffer(lake: string, path: string, size: number) {
  const url = `${location.origin}/v1/lakes/${lake}/data/${path.split("/").map(encodeURIComponent).join("/")}`;
  return {
    byteLength: size,
    async slice(start: number, end?: number): Promise<ArrayBuffer> {
      const last = (end ?? size) - 1;
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${getToken() ?? ""}`, range: `bytes=${start}-${last}` },
      });
      if (!res.ok) throw new Error(`data file ${path}: HTTP ${res.status}`);
      return res.arrayBuffer();
    },
  };
}

/** The data-route path of a file resolved under the lake's own data prefix, or null (a custom data path). */
export function dataRoutePath(lake: string, resolvedPath: string): string | null {
  const marker = `/lakes/${lake}/data/`;
  const at = resolvedPath.indexOf(marker);
  return at < 0 ? null : resolvedPath.slice(at + marker.length);
}
