import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { UI_CHUNKS, UI_CSS, UI_JS } from "../../ui/assets.generated.ts";

describe("explorer static files at /ui", () => {
  it("serves the page, its script and stylesheet without a token, with a same-origin CSP", async () => {
    const page = await SELF.fetch("https://edge.test/ui");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/ui/app.js"></script>');
    const js = await SELF.fetch("https://edge.test/ui/app.js");
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await js.text()).toBe(UI_JS);
    expect(await (await SELF.fetch("https://edge.test/ui/app.css")).text()).toBe(UI_CSS);
  });

  it("serves the on-demand chunks the entry script imports, cacheable by their hashed names", async () => {
    const names = Object.keys(UI_CHUNKS);
    expect(names.map((n) => n.replace(/-[A-Z0-9]{8}\.js$/, "")).sort()).toEqual(["charts", "preview"]);
    for (const name of names) {
      expect(UI_JS).toContain(`./${name}`);
      const res = await SELF.fetch(`https://edge.test/ui/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
      expect(res.headers.get("cache-control")).toContain("immutable");
      expect(await res.text()).toBe(UI_CHUNKS[name]);
    }
    // The first load carries neither uPlot nor hyparquet.
    expect(UI_JS.length).toBeLessThan(48_000);
    expect((await SELF.fetch("https://edge.test/ui/toString")).status).toBe(404);
  });

  it("answers 404 for other /ui paths and 405 for writes; the API is unaffected", async () => {
    expect((await SELF.fetch("https://edge.test/ui/nope.js")).status).toBe(404);
    expect((await SELF.fetch("https://edge.test/ui", { method: "POST" })).status).toBe(405);
    expect((await SELF.fetch("https://edge.test/uix")).status).toBe(404);
    expect((await SELF.fetch("https://edge.test/v1/health")).status).toBe(200);
  });
});
