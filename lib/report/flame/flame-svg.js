/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run SVG flame graph script: click to zoom, search, details.
 * Each frame is a "g" element (class f) with
 * data-x (sample offset), data-w (samples), data-d (depth) and data-n
 * (name); the svg element carries data-total, data-width, data-pad.
 */
(function () {
"use strict";
var svg = document.documentElement;
var NS = "http://www.w3.org/2000/svg";
var total = +svg.getAttribute("data-total") || 1;
var W = +svg.getAttribute("data-width"), PAD = +svg.getAttribute("data-pad");
var FS = +svg.getAttribute("data-fontsize") || 12;
var frames = Array.prototype.slice.call(document.querySelectorAll("g.f"));
var details = document.getElementById("details");
var matchedEl = document.getElementById("matched");
var resetEl = document.getElementById("unzoom");
var zoomed = null, searchRe = null;

frames.forEach(function (g) {
	var r = g.querySelector("rect");
	g.fx = +g.getAttribute("data-x");
	g.fw = +g.getAttribute("data-w");
	g.fd = +g.getAttribute("data-d");
	g.fname = g.getAttribute("data-n");
	g.fill = r.getAttribute("fill");
	g.rect = r;
	g.text = g.querySelector("text");
	g.title = g.querySelector("title").textContent;
});

function fit(g, w) {
	var max = Math.floor((w - 6) / (FS * 0.6));
	var t = g.fname;
	if (max < 3)
		return "";
	return t.length > max ? t.slice(0, max - 2) + ".." : t;
}

function place(g, x, w, hidden, dim) {
	g.style.display = hidden ? "none" : "";
	if (hidden)
		return;
	g.rect.setAttribute("x", x.toFixed(2));
	g.rect.setAttribute("width", Math.max(w, 0.1).toFixed(2));
	g.text.setAttribute("x", (x + 3).toFixed(2));
	g.text.textContent = fit(g, w);
	g.style.opacity = dim ? "0.55" : "";
}

function zoom(g) {
	zoomed = g;
	var x0 = g.fx, x1 = g.fx + g.fw, d0 = g.fd, scale = W / g.fw;
	frames.forEach(function (f) {
		var inside = f.fx >= x0 && f.fx + f.fw <= x1 && f.fd >= d0;
		var above = f.fd < d0 && f.fx <= x0 && f.fx + f.fw >= x1;
		if (inside)
			place(f, PAD + (f.fx - x0) * scale, f.fw * scale,
			      f.fw * scale < 0.1, false);
		else if (above)
			place(f, PAD, W, false, true);
		else
			place(f, 0, 0, true, false);
	});
	resetEl.style.display = "";
	svg.setAttribute("data-zoomed", g.fname);
	if (searchRe)
		search(searchRe);
}

function unzoom() {
	zoomed = null;
	var scale = W / total;
	frames.forEach(function (f) {
		place(f, PAD + f.fx * scale, f.fw * scale, false, false);
	});
	resetEl.style.display = "none";
	svg.removeAttribute("data-zoomed");
	if (searchRe)
		search(searchRe);
}

function search(re) {
	searchRe = re;
	var hits = [];
	frames.forEach(function (f) {
		var m = re && re.test(f.fname);
		f.rect.setAttribute("fill", m ? "rgb(214,59,208)" : f.fill);
		if (m)
			hits.push(f);
	});
	if (!re) {
		matchedEl.textContent = "";
		return;
	}
	/* samples under a match, each counted once: merge the intervals */
	hits.sort(function (a, b) { return a.fx - b.fx || b.fw - a.fw; });
	var sum = 0, end = -1;
	var lo = zoomed ? zoomed.fx : 0, hi = zoomed ? zoomed.fx + zoomed.fw :
		total;
	hits.forEach(function (f) {
		var a = Math.max(f.fx, lo), b = Math.min(f.fx + f.fw, hi);
		if (b <= a)
			return;
		if (a >= end) {
			sum += b - a;
			end = b;
		} else if (b > end) {
			sum += b - end;
			end = b;
		}
	});
	var p = 100 * sum / (hi - lo || 1);
	matchedEl.textContent = "Matched: " + p.toFixed(1) + "%";
	svg.setAttribute("data-matched", p.toFixed(2));
}

function doSearch(term) {
	if (!term) {
		search(null);
		svg.removeAttribute("data-matched");
		return;
	}
	var re;
	try {
		re = new RegExp(term, "i");
	} catch (e) {
		re = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
				"i");
	}
	search(re);
}

svg.addEventListener("click", function (ev) {
	var g = ev.target.closest ? ev.target.closest("g.f") : null;
	if (g) {
		if (g === zoomed && g.fd > 0)
			unzoom();
		else
			zoom(g);
	}
});
svg.addEventListener("mouseover", function (ev) {
	var g = ev.target.closest ? ev.target.closest("g.f") : null;
	details.textContent = g ? g.title : " ";
});
resetEl.addEventListener("click", function (ev) {
	ev.stopPropagation();
	unzoom();
});
document.getElementById("search").addEventListener("click", function (ev) {
	ev.stopPropagation();
	if (searchRe) {
		doSearch("");
		return;
	}
	var term = window.prompt("Search for (regular expression):", "");
	if (term)
		doSearch(term);
});
document.addEventListener("keydown", function (ev) {
	if ((ev.ctrlKey || ev.metaKey) && ev.key === "f") {
		ev.preventDefault();
		var term = window.prompt("Search for (regular expression):",
					 "");
		if (term)
			doSearch(term);
	} else if (ev.key === "Escape") {
		unzoom();
	}
});
/* flamegraph.svg?s=term searches on load, like FlameGraph */
var m = /[?&]s=([^&]*)/.exec(window.location.search || "");
if (m)
	doSearch(decodeURIComponent(m[1]));
window.pyperfFlameSearch = doSearch;
svg.setAttribute("data-ready", "1");
})();
