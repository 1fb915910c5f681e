/**
 * The explorer's static files, served by the Worker at /ui (the page), /ui/app.js, /ui/app.css and the
 * chunks app.js imports on demand (/ui/<name>-<hash>.js: the charts, the Parquet preview) from strings
 * bundled at build time (ui/assets.generated.ts; decisions 0342-explorer.md, 0343-explorer-lazy-chunks.md). Outside the /v1 API
 * and its OpenAPI document: no token is needed to load the page, which then calls /v1 with the token the
 * person enters (kept in sessionStorage; a `#token=` fragment never reaches the server).
 */
import { UI_CHUNKS, UI_CSS, UI_JS } from "../ui/assets.generated.ts";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ducklake-edge explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/app.css">
</head>
<body>
<div id="app"></div>
<script type="module" src="/ui/app.js"></script>
</body>
</html>
`;

const COMMON: Record<string, string> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // The bundle only talks to this origin; uPlot sets inline styles.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
};

/** The explorer's answer for a path under /ui, or null when the path is not the explorer's. */
export function serveUi(request: Request): Response | null {
  const { pathname } = new URL(request.url);
  if (pathname !== "/ui" && !pathname.startsWith("/ui/")) return null;
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed", { status: 405, headers: { ...COMMON, allow: "GET, HEAD" } });
  }
  const body = (text: string, type: string, cache: string) =>
    new Response(request.method === "HEAD" ? null : text, {
      status: 200,
      headers: { ...COMMON, "content-type": type, "cache-control": cache },
    });
  if (pathname === "/ui/app.js") return body(UI_JS, "text/javascript; charset=utf-8", "no-cache");
  if (pathname === "/ui/app.css") return body(UI_CSS, "text/css; charset=utf-8", "no-cache");
  // Chunk names carry their content hash, so a cached copy can never be stale.
  const chunk = Object.hasOwn(UI_CHUNKS, pathname.slice("/ui/".length))
    ? UI_CHUNKS[pathname.slice("/ui/".length)]
    : undefined;
  if (chunk !== undefined)
    return body(chunk, "text/javascript; charset=utf-8", "public, max-age=31536000, immutable");
  if (pathname === "/ui" || pathname === "/ui/") return body(PAGE, "text/html; charset=utf-8", "no-cache");
  return new Response("not found", { status: 404, headers: { ...COMMON, "content-type": "text/plain" } });
}
