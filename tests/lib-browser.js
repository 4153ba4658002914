#!/usr/bin/env node
/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Drives Debian's chromium-headless-shell (or chromium) through
 * playwright-core for the t6xxx tests: opens a pyperf-run HTML or SVG
 * flame graph from a file:// URL, uses it the way a person does (mouse
 * clicks, typing, hovering) and prints what it saw as "key=value" lines
 * (one value per line; lists repeat the key).  Any request to anything
 * but the file itself is recorded as "request=URL" and then refused.
 *
 *   node lib-browser.js html FILE [--zoom NAME] [--search TERM]...
 *        [--hover NAME] [--inverted] [--screenshot PNG]
 *        [--viewport WxH] [--in-view NAME]... [--first-screen PNG]
 *        [--timeline-span LANE,REASON [--tl-waker]]
 * html prints warning=TEXT per item of the page's warning banner,
 * warnings_in_view=true|false (the banner is on the first screen), and
 * per --in-view NAME, in_view=NAME|true|false: the widest frame called
 * NAME ("all" is the root) is drawn and entirely on the first screen,
 * before anything is scrolled.  --first-screen saves that screen.
 * --timeline-span clicks the longest span of REASON ("running" or a wait
 * reason) in lane LANE of the timeline (wall and off-cpu clocks) and
 * prints tl_lanes, tl_span_us (its length), tl_total_before and
 * tl_total_after (the flame graph's root, in the page's unit),
 * tl_range and a label=... line per frame drawn then; with --tl-waker,
 * tl_waker (the clicked wait's waker, "null" without one), then after a
 * click on "Show the waker", tl_waker_range and a tl_waker_label=...
 * line per frame drawn.
 *   node lib-browser.js svg FILE [--zoom NAME] [--search TERM]...
 *        [--screenshot PNG]
 *   node lib-browser.js speedscope FILE [--screenshot PNG]
 * Each search prints matched=TEXT and matched_for=TERM|TEXT.
 * svg prints warning=TEXT|VISIBLE per warning line under the title.
 * speedscope: serves speedscope's own app (the npm package) and FILE on
 * 127.0.0.1 and opens FILE in it with #profileURL=, as a user would.
 *
 * Environment: PPR_CHROMIUM (lib-flame.sh sets it: Debian's
 * chromium-headless-shell, else chromium; default here
 * /usr/bin/chromium-headless-shell).
 */
"use strict";
const path = require("path");
const fs = require("fs");
const { chromium } = require("playwright-core");

function parse(argv) {
	const o = { kind: argv[0], file: path.resolve(argv[1]) };
	for (let i = 2; i < argv.length; i++) {
		const a = argv[i];
		if (a === "--inverted")
			o.inverted = true;
		else if (a === "--tl-waker")
			o.tlWaker = true;
		else if (a === "--search")
			(o.searches = o.searches || []).push(argv[++i]);
		else if (a === "--in-view")
			(o.inView = o.inView || []).push(argv[++i]);
		else
			o[a.replace(/^--/, "")] = argv[++i];
	}
	return o;
}

function out(k, v) {
	process.stdout.write(k + "=" + String(v).replace(/\n/g, " ") + "\n");
}

/* playwright gives every launch a fresh, empty user-data-dir */
async function launch() {
	const browser = await chromium.launch({
		executablePath: process.env.PPR_CHROMIUM ||
			"/usr/bin/chromium-headless-shell",
		args: ["--headless", "--no-sandbox", "--disable-gpu",
		       "--disable-background-networking",
		       "--disable-component-update", "--disable-sync",
		       "--no-first-run", "--disable-quic"]
	});
	return browser;
}

async function page_for(browser, file, viewport) {
	const m = /^(\d+)x(\d+)$/.exec(viewport || "1280x900");
	const ctx = await browser.newContext({
		viewport: { width: +m[1], height: +m[2] }
	});
	const page = await ctx.newPage();
	const self = "file://" + file;
	await page.route("**/*", (route) => {
		const u = route.request().url();
		if (u === self || u.startsWith(self + "?")) {
			route.continue();
		} else {
			out("request", u);
			route.abort();
		}
	});
	page.on("pageerror", (e) => out("pageerror", e.message));
	page.on("console", (m) => {
		if (m.type() === "error")
			out("console_error", m.text());
	});
	return page;
}

/* Viewport coordinates of the frame called name (scrolled into view). */
async function frame_point(page, name) {
	return page.evaluate((n) => {
		const at = window.pyperfFlame.locate(n);
		if (!at)
			return null;
		const c = document.getElementById("flame");
		const wrap = document.getElementById("wrap");
		let r = c.getBoundingClientRect();
		/* the graph scrolls inside #wrap, the page in the window */
		const wr = wrap.getBoundingClientRect();
		wrap.scrollTop += r.top + at.y - (wr.top + wr.height / 2);
		r = c.getBoundingClientRect();
		window.scrollBy(0, r.top + at.y - window.innerHeight / 2);
		r = c.getBoundingClientRect();
		return { x: r.left + at.x, y: r.top + at.y, w: at.w,
			 cw: r.width };
	}, name);
}

async function html(browser, o) {
	const page = await page_for(browser, o.file, o.viewport);
	const t0 = Date.now();
	await page.goto("file://" + o.file);
	await page.waitForSelector("body[data-ready='1']", { timeout: 60000 });
	out("load_ms", Date.now() - t0);
	for (const w of await page.$$eval("#warnings li",
					  (ls) => ls.map((l) => l.textContent)))
		out("warning", w);
	for (const n of await page.$$eval("#notes li",
					  (ls) => ls.map((l) => l.textContent)))
		out("note", n);
	out("warnings_in_view", await page.evaluate(() => {
		const el = document.getElementById("warnings");
		const r = el && el.getBoundingClientRect();
		return !!r && r.height > 0 && r.top >= 0 &&
			r.bottom <= window.innerHeight;
	}));
	for (const name of o.inView || [])
		out("in_view", name + "|" + await page.evaluate((n) => {
			const at = window.pyperfFlame.locate(n);
			if (!at)
				return false;
			const c = document.getElementById("flame")
				.getBoundingClientRect();
			const w = document.getElementById("wrap")
				.getBoundingClientRect();
			const top = c.top + at.y - 9, bottom = c.top + at.y + 9;
			return top >= Math.max(0, w.top) && bottom <=
				Math.min(window.innerHeight, w.bottom) &&
				c.left + at.x < window.innerWidth;
		}, name));
	if (o["first-screen"])
		await page.screenshot({ path: o["first-screen"] });
	out("render_ms", Math.round(await page.evaluate(
		() => window.pyperfFlame.renderMs)));
	out("title", await page.title());
	out("header", await page.textContent("header"));
	out("legend", await page.textContent("#legend"));
	out("nodes", await page.evaluate(() => window.pyperfFlame.nodes()));
	out("start_inverted", await page.evaluate(
		() => window.pyperfFlame.inverted()));
	for (const l of await page.evaluate(() => window.pyperfFlame.labels()))
		out("label", l);
	if (o["timeline-span"]) {
		const [lane, reason] = o["timeline-span"].split(",");
		out("tl_lanes", await page.evaluate(() =>
			window.pyperfTimeline ? window.pyperfTimeline.lanes() : 0));
		const at = await page.evaluate(([l, r]) =>
			window.pyperfTimeline &&
			window.pyperfTimeline.longest(+l, r), [lane, reason]);
		if (at) {
			out("tl_span_us", at.dur);
			out("tl_total_before", await page.evaluate(
				() => window.pyperfFlame.total()));
			await page.mouse.click(at.x, at.y);
			out("tl_total_after", await page.evaluate(
				() => window.pyperfFlame.total()));
			out("tl_range", JSON.stringify(await page.evaluate(
				() => window.pyperfFlame.range())));
			for (const l of await page.evaluate(
				() => window.pyperfFlame.labels()))
				out("tl_label", l);
			if (o.tlWaker) {
				const w = await page.evaluate(
					() => window.pyperfTimeline.waker());
				out("tl_waker", String(w));
				if (w !== null) {
					await page.click("#tl-waker");
					out("tl_waker_range", JSON.stringify(
						await page.evaluate(() =>
							window.pyperfFlame.range())));
					out("tl_waker_info", await page.textContent(
						"#tl-info"));
					for (const l of await page.evaluate(
						() => window.pyperfFlame.labels()))
						out("tl_waker_label", l);
				}
			}
		} else {
			out("tl_span_us", "(no such span)");
		}
	}
	if (o.hover) {
		const at = await frame_point(page, o.hover);
		if (at) {
			await page.mouse.move(at.x, at.y);
			out("tooltip", await page.textContent("#tip"));
			out("tooltip_visible", await page.isVisible("#tip"));
		} else {
			out("tooltip", "(frame not drawn)");
		}
	}
	if (o.zoom) {
		const at = await frame_point(page, o.zoom);
		if (at) {
			out("width_before", at.w / at.cw);
			const t1 = Date.now();
			await page.mouse.click(at.x, at.y);
			out("zoom_ms", Date.now() - t1);
			out("zoomed", await page.evaluate(
				() => window.pyperfFlame.zoomed()));
			out("width_after", await page.evaluate((n) =>
				window.pyperfFlame.width(n), o.zoom));
			out("crumbs", await page.textContent("#crumbs"));
			if (o.screenshot)
				await page.screenshot({ path: o.screenshot.replace(
					/\.png$/, "-zoom.png"), fullPage: true });
			await page.click("#reset");
			out("zoomed_after_reset", await page.evaluate(
				() => window.pyperfFlame.zoomed()));
		} else {
			out("zoomed", "(frame not drawn)");
		}
	}
	for (const term of o.searches || []) {
		const t1 = Date.now();
		await page.fill("#search", term);
		await page.waitForFunction(() =>
			document.getElementById("matchinfo").textContent !== "",
			null, { timeout: 20000 });
		out("search_ms", Date.now() - t1);
		const m = await page.textContent("#matchinfo");
		out("matched", m);
		out("matched_for", term + "|" + m);
		for (const l of await page.evaluate(
			() => window.pyperfFlame.highlighted()))
			out("highlighted", l);
		if (o.screenshot)
			await page.screenshot({ path: o.screenshot.replace(
				/\.png$/, "-search.png"), fullPage: true });
		await page.click("#clear");
		await page.waitForFunction(() =>
			document.getElementById("matchinfo").textContent === "",
			null, { timeout: 20000 });
	}
	if (o.inverted) {
		const t1 = Date.now();
		await page.click("#v-inverted");
		out("inverted_ms", Date.now() - t1);
		out("inverted", await page.evaluate(
			() => window.pyperfFlame.inverted()));
		for (const l of await page.evaluate(
			() => window.pyperfFlame.labels()))
			out("inv_label", l);
		if (o.screenshot)
			await page.screenshot({ path: o.screenshot.replace(
				/\.png$/, "-inverted.png"), fullPage: true });
		await page.click("#v-flame");
	}
	if (o.screenshot)
		await page.screenshot({ path: o.screenshot, fullPage: true });
}

async function svg(browser, o) {
	const page = await page_for(browser, o.file, o.viewport);
	let answer = null;
	page.on("dialog", (d) => d.accept(answer || ""));
	const t0 = Date.now();
	await page.goto("file://" + o.file);
	await page.waitForSelector("svg[data-ready='1']", { timeout: 60000 });
	out("load_ms", Date.now() - t0);
	out("title", await page.textContent("#title"));
	out("subtitle", await page.textContent("#subtitle"));
	for (const w of await page.$$eval("text.warning", (ts) => ts.map(
		(t) => {
			const r = t.getBoundingClientRect();
			return t.textContent + "|" + (r.width > 0 &&
				r.bottom <= window.innerHeight &&
				r.right <= window.innerWidth);
		})))
		out("warning", w);
	out("frames", await page.$$eval("g.f", (g) => g.length));
	for (const t of await page.$$eval("g.f", (gs) => gs.filter((g) =>
		g.querySelector("text").textContent.length > 2).map(
		(g) => g.getAttribute("data-n"))))
		out("label", t);
	if (o.zoom) {
		const sel = "g.f[data-n=" + JSON.stringify(o.zoom) + "] rect";
		const els = await page.$$(sel);
		let best = null, bw = -1;
		for (const e of els) {
			const b = await e.boundingBox();
			if (b && b.width > bw) {
				bw = b.width;
				best = e;
			}
		}
		if (best) {
			out("width_before", bw);
			/* a tall graph may put it below the viewport */
			await best.scrollIntoViewIfNeeded();
			const b = await best.boundingBox();
			await page.mouse.click(b.x + b.width / 2,
					       b.y + b.height / 2);
			out("zoomed", await page.getAttribute("svg",
							     "data-zoomed"));
			out("width_after", (await best.boundingBox()).width);
			out("unzoom_visible", await page.isVisible("#unzoom"));
			if (o.screenshot)
				await page.screenshot({ path: o.screenshot.replace(
					/\.png$/, "-zoom.png") });
			await page.click("#unzoom");
			out("zoomed_after_reset", await page.getAttribute(
				"svg", "data-zoomed"));
		} else {
			out("zoomed", "(frame not drawn)");
		}
	}
	for (const term of o.searches || []) {
		answer = term;
		await page.click("#search");
		await page.waitForFunction(() =>
			document.getElementById("matched").textContent !== "",
			null, { timeout: 20000 });
		const m = await page.textContent("#matched");
		out("matched", m);
		out("matched_for", term + "|" + m);
		out("highlighted", await page.$$eval("g.f rect", (rs) =>
			rs.filter((r) => r.getAttribute("fill") ===
				  "rgb(214,59,208)").length));
		/* clicking Search again clears it */
		await page.click("#search");
	}
	if (o.screenshot)
		await page.screenshot({ path: o.screenshot });
}

/* speedscope's app from node_modules, and the profile, on localhost */
function serve(file) {
	const http = require("http");
	const root = path.dirname(require.resolve(
		"speedscope/dist/release/index.html"));
	const types = { ".html": "text/html", ".js": "text/javascript",
			".css": "text/css", ".json": "application/json",
			".wasm": "application/wasm", ".png": "image/png" };
	const srv = http.createServer((req, res) => {
		const u = decodeURIComponent(req.url.split(/[?#]/)[0]);
		const p = u === "/profile.json" ? file :
			path.join(root, path.normalize(u));
		if (p !== file && !p.startsWith(root + path.sep)) {
			res.writeHead(403);
			res.end();
			return;
		}
		fs.readFile(p, (e, d) => {
			if (e) {
				res.writeHead(404);
				res.end();
				return;
			}
			res.writeHead(200, { "Content-Type":
				types[path.extname(p)] || "application/octet-stream" });
			res.end(d);
		});
	});
	return new Promise((ok) => srv.listen(0, "127.0.0.1",
					      () => ok(srv)));
}

async function speedscope(browser, o) {
	const srv = await serve(o.file);
	const base = "http://127.0.0.1:" + srv.address().port;
	try {
		const ctx = await browser.newContext({
			viewport: { width: 1280, height: 800 } });
		const page = await ctx.newPage();
		await page.route("**/*", (route) => {
			const u = route.request().url();
			if (u.startsWith(base + "/")) {
				route.continue();
			} else {
				out("request", u);
				route.abort();
			}
		});
		page.on("pageerror", (e) => out("pageerror", e.message));
		page.on("console", (m) => {
			if (m.type() === "error")
				out("console_error", m.text());
			else if (/^Importing as /.test(m.text()))
				out("import", m.text());
		});
		await page.goto(base + "/index.html#profileURL=" +
				encodeURIComponent(base + "/profile.json"));
		await page.waitForFunction(() => / - speedscope$/.test(
			document.title), null, { timeout: 30000 });
		out("title", await page.title());
		out("body", await page.textContent("body"));
		if (o.screenshot)
			await page.screenshot({ path: o.screenshot });
	} finally {
		srv.close();
	}
}

(async () => {
	const o = parse(process.argv.slice(2));
	let browser, status = 0;
	try {
		browser = await launch();
	} catch (e) {
		out("error", e.message);
		process.exit(1);
	}
	try {
		if (o.kind === "html")
			await html(browser, o);
		else if (o.kind === "svg")
			await svg(browser, o);
		else if (o.kind === "speedscope")
			await speedscope(browser, o);
		else
			throw new Error("unknown kind " + o.kind);
	} catch (e) {
		out("error", e.message);
		status = 1;
	} finally {
		await browser.close();
	}
	process.exit(status);
})();
