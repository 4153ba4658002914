/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pyperf-run flame graph page: builds the call tree from the embedded
 * profile and draws it on a canvas.
 *
 * Data (the JSON in <script id="ppr-data">), written by lib/report/fmt_html.c:
 *   title, meta: [[label, value], ...], unit, total, diff (0/1),
 *   warnings: ["sentence", ...]  (shown in a banner above the graph),
 *   notes: ["sentence", ...]  (what cannot change the Python program's
 *            answer: folded under the banner's place, never a warning),
 *   total0 (diff: samples of the old profile),
 *   strings: ["", ...],
 *   frames: [name, file, dso, kind, ...]   (string indices; 0 = none)
 *   nodes:  [frame, depth, self, ...]      (preorder, depth >= 1,
 *            siblings sorted by name; diff: [frame, depth, self, self0])
 * Kinds: 0 python, 1 libpython, 2 extension, 3 system library,
 *   4 other native, 5 kernel, 6 interpreter plumbing, 7 unknown,
 *   8 process/thread, 9 off-CPU (a wait's "[off-cpu REASON]" leaf).
 *   timeline (wall and off-cpu clocks): threads: [[pid, tid, comm]...],
 *   wakes (record --wakers): [span, thread...], a wait's waker,
 *   reasons: [name...], t0 (seconds, perf clock), spans: [thread,
 *   start, duration (microseconds from t0), reason (-1 running), node
 *   (index of the top-down tree's node the span's stack ends in)...].
 */
(function () {
"use strict";
var D = JSON.parse(document.getElementById("ppr-data").textContent);
var S = D.strings, FR = D.frames, DIFF = !!D.diff;
var NF = FR.length / 4;
var KINDS = [
	["Python", [46, 139, 87], 25],
	["libpython (interpreter)", [222, 184, 49], 14],
	["C extension", [236, 132, 45], 16],
	["system library (libc, ld.so…)", [196, 150, 110], 12],
	["other native", [214, 108, 72], 14],
	["kernel", [199, 70, 96], 14],
	["interpreter plumbing", [170, 170, 150], 8],
	["unknown", [160, 160, 160], 6],
	["process / thread", [120, 144, 176], 6],
	["off-CPU", [74, 120, 194], 10]
];
var ROW = 18;
/* Frames narrower than this (CSS pixels) are not drawn. */
var MIN_DRAW = 0.35;
/* The graph is as tall as the deepest frame at least this wide: a sliver
 * of thin, deep stacks does not push the rest below the fold. */
var MIN_SEE = 1;

function fname(f) { return S[FR[4 * f]]; }
function ffile(f) { return S[FR[4 * f + 1]]; }
function fdso(f) { return S[FR[4 * f + 2]]; }
function fkind(f) { return FR[4 * f + 3]; }

/* --- trees: struct-of-arrays, node 0 is the root ----------------------- */
function Tree(n) {
	this.n = 0;
	this.frame = new Int32Array(n);
	this.parent = new Int32Array(n);
	this.first = new Int32Array(n).fill(-1);
	this.next = new Int32Array(n).fill(-1);
	this.depth = new Int32Array(n);
	this.self = new Float64Array(n);
	this.tot = new Float64Array(n);
	this.self0 = DIFF ? new Float64Array(n) : null;
	this.tot0 = DIFF ? new Float64Array(n) : null;
	this.maxDepth = 0;
}
Tree.prototype.add = function (frame, parent, depth) {
	var i = this.n++;
	this.frame[i] = frame;
	this.parent[i] = parent;
	this.depth[i] = depth;
	if (depth > this.maxDepth)
		this.maxDepth = depth;
	return i;
};
/* Totals from selves (children always come after their parent). */
Tree.prototype.sum = function () {
	for (var i = this.n - 1; i > 0; i--) {
		this.tot[i] += this.self[i];
		this.tot[this.parent[i]] += this.tot[i];
		if (DIFF) {
			this.tot0[i] += this.self0[i];
			this.tot0[this.parent[i]] += this.tot0[i];
		}
	}
	this.tot[0] += this.self[0];
	if (DIFF)
		this.tot0[0] += this.self0[0];
};

function buildTopDown() {
	var N = D.nodes, w = DIFF ? 4 : 3, n = N.length / w;
	var t = new Tree(n + 1), path = [0], lastKid = new Int32Array(n + 1);
	lastKid.fill(-1);
	t.add(-1, -1, 0);
	for (var k = 0; k < n; k++) {
		var d = N[w * k + 1], p = path[d - 1];
		var i = t.add(N[w * k], p, d);
		if (lastKid[p] >= 0)
			t.next[lastKid[p]] = i;
		else
			t.first[p] = i;
		lastKid[p] = i;
		path[d] = i;
		t.self[i] = N[w * k + 2];
		if (DIFF)
			t.self0[i] = N[w * k + 3];
	}
	t.sum();
	return t;
}

/* Frames ranked by name (then kind): sibling order as numbers. */
var frameRank = null;
function ranks() {
	if (frameRank)
		return frameRank;
	var order = [];
	for (var f = 0; f < NF; f++)
		order.push(f);
	order.sort(function (a, b) {
		var x = fname(a), y = fname(b);
		return x < y ? -1 : x > y ? 1 : fkind(a) - fkind(b);
	});
	frameRank = new Int32Array(NF);
	order.forEach(function (f, r) { frameRank[f] = r; });
	return frameRank;
}

/* The inverted tree: for every node with samples ending there, its path
 * leaf first, merged; siblings sorted by name like the top-down tree. */
function buildInverted(td) {
	var cap = 1 << 16, t = new Tree(cap);
	/* (parent, frame) -> child: open addressing in typed arrays */
	var hcap = 1 << 17, hkeyP = new Int32Array(hcap).fill(-1),
		hkeyF = new Int32Array(hcap), hval = new Int32Array(hcap);
	function slot(p, f) {
		var h = (Math.imul(p, 0x9e3779b1) ^ Math.imul(f + 1, 0x85ebca6b))
			& (hcap - 1);
		while (hkeyP[h] >= 0 && (hkeyP[h] !== p || hkeyF[h] !== f))
			h = (h + 1) & (hcap - 1);
		return h;
	}
	function rehash() {
		hcap *= 2;
		hkeyP = new Int32Array(hcap).fill(-1);
		hkeyF = new Int32Array(hcap);
		hval = new Int32Array(hcap);
		for (var k = 1; k < t.n; k++) {
			var h = slot(t.parent[k], t.frame[k]);
			hkeyP[h] = t.parent[k];
			hkeyF[h] = t.frame[k];
			hval[h] = k;
		}
	}
	function grow() {
		var o = t;
		cap *= 2;
		t = new Tree(cap);
		["frame", "parent", "depth", "self", "self0"].forEach(
			function (a) {
				if (o[a])
					t[a].set(o[a].subarray(0, o.n));
			});
		t.n = o.n;
		t.maxDepth = o.maxDepth;
	}
	t.add(-1, -1, 0);
	for (var i = 1; i < td.n; i++) {
		var s = td.self[i], s0 = DIFF ? td.self0[i] : 0;
		if (!s && !s0)
			continue;
		var cur = 0, d = 0;
		for (var j = i; j > 0; j = td.parent[j]) {
			var f = td.frame[j], h = slot(cur, f), c;
			d++;
			if (hkeyP[h] >= 0) {
				c = hval[h];
			} else {
				if (t.n === cap)
					grow();
				c = t.add(f, cur, d);
				hkeyP[h] = cur;
				hkeyF[h] = f;
				hval[h] = c;
				if (2 * t.n > hcap)
					rehash();
			}
			cur = c;
		}
		/* samples whose leaf path ends here; sum() carries them up */
		t.self[cur] += s;
		if (DIFF)
			t.self0[cur] += s0;
	}
	hkeyP = hkeyF = hval = null;
	t.sum();
	/* siblings: bucket by parent, then order each bucket by name */
	var n = t.n, R = ranks(), start = new Int32Array(n + 1);
	var order = new Int32Array(n), fill;
	for (var k = 1; k < n; k++)
		start[t.parent[k] + 1]++;
	for (k = 0; k < n; k++)
		start[k + 1] += start[k];
	fill = start.slice();
	for (k = 1; k < n; k++)
		order[fill[t.parent[k]]++] = k;
	var byName = function (a, b) {
		return R[t.frame[a]] - R[t.frame[b]];
	};
	for (var p = 0; p < n; p++) {
		var a = start[p], b = start[p + 1];
		if (a === b)
			continue;
		if (b - a > 1)
			order.subarray(a, b).sort(byName);
		t.first[p] = order[a];
		for (var q = a; q + 1 < b; q++)
			t.next[order[q]] = order[q + 1];
	}
	return t;
}

/* --- state ------------------------------------------------------------ */
var topdown = buildTopDown(), inverted = null;
var tree = topdown, isInverted = false, zoom = 0, matchRe = null;
var frameMatch = null;		/* Uint8Array per frame */
var canvas = document.getElementById("flame");
var ctx = canvas.getContext("2d");
var tip = document.getElementById("tip");
var details = document.getElementById("details");
var rows = [];			/* per row: [x0, x1, node, ...] drawn */
var labelled = [];		/* nodes drawn wide enough for a label */
var W = 0, CHW = 7;

/* --- header ----------------------------------------------------------- */
function esc(s) {
	return String(s).replace(/[&<>"]/g, function (c) {
		return { "&": "&amp;", "<": "&lt;", ">": "&gt;",
			 '"': "&quot;" }[c];
	});
}
document.getElementById("title").innerHTML = esc(D.title || "");
if (D.titleCode)
	document.getElementById("title").innerHTML +=
		" <code>" + esc(D.titleCode) + "</code>";
document.title = (D.titleCode ? D.titleCode + " — " : "") +
	(D.title || "pyperf-run");
(function warnings() {
	var w = D.warnings || [], el = document.getElementById("warnings");
	if (!w.length)
		return;
	el.innerHTML = "<b>" + (w.length === 1 ? "Warning" : w.length +
		" warnings") + ": the numbers below may mislead</b><ul>" +
		w.map(function (s) {
			return "<li>" + esc(s) + "</li>";
		}).join("") + "</ul>";
	el.hidden = false;
})();
(function notes() {
	var n = D.notes || [], el = document.getElementById("notes");
	if (!n.length)
		return;
	el.querySelector("summary").textContent = (n.length === 1 ? "1 note" :
		n.length + " notes") + " (under 1% of the Python program's " +
		"samples, or outside it: they do not change its numbers)";
	el.querySelector("ul").innerHTML = n.map(function (s) {
		return "<li>" + esc(s) + "</li>";
	}).join("");
	el.hidden = false;
})();
document.getElementById("meta").innerHTML = (D.meta || []).map(
	function (m) {
		return "<div><dt>" + esc(m[0]) + "</dt><dd>" + esc(m[1]) +
			"</dd></div>";
	}).join("");

/* Share of samples per kind (leaf frames), for the legend. */
(function legend() {
	var per = new Float64Array(KINDS.length), html = [];
	for (var i = 1; i < topdown.n; i++)
		per[fkind(topdown.frame[i])] += topdown.self[i];
	var tot = topdown.tot[0] || 1;
	if (DIFF) {
		html.push('<span><span class="sw" style="background:' +
			"rgb(230,80,70)" + '"></span>more samples in NEW</span>');
		html.push('<span><span class="sw" style="background:' +
			"rgb(80,120,230)" + '"></span>fewer samples in NEW</span>');
		html.push('<span>width: samples in NEW</span>');
	}
	KINDS.forEach(function (k, i) {
		var seen = DIFF;	/* a diff colours by change, not kind */
		if (seen)
			return;
		for (var f = 0; f < NF && !seen; f++)
			seen = fkind(f) === i;
		if (!seen)
			return;
		var c = k[1];
		html.push('<span><span class="sw" style="background:rgb(' +
			c.join(",") + ')"></span>' + esc(k[0]) +
			(DIFF || i === 8 ? "" : " " +
			 (100 * per[i] / tot).toFixed(1) + "% self") +
			"</span>");
	});
	html.push('<span><span class="sw" style="background:' +
		'var(--match)"></span>search match</span>');
	document.getElementById("legend").innerHTML = html.join("");
})();

/* --- colours ---------------------------------------------------------- */
function hash(s) {
	var h = 2166136261;
	for (var i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 16777619);
	}
	return ((h >>> 0) % 1000) / 1000;
}
var colourCache = new Array(NF);
function colour(f) {
	var c = colourCache[f];
	if (c)
		return c;
	var k = KINDS[fkind(f)] || KINDS[7], base = k[1], v = k[2];
	var r = (hash(fname(f)) - 0.5) * 2 * v;
	c = "rgb(" + base.map(function (x) {
		return Math.max(0, Math.min(255, Math.round(x + r)));
	}).join(",") + ")";
	colourCache[f] = c;
	return c;
}
function diffColour(i) {
	var a = tree.tot[i] / (tree.tot[0] || 1);
	var b = tree.tot0[i] / (tree.tot0[0] || 1);
	var d = a - b;		/* share change, of all samples */
	var m = Math.min(1, Math.abs(d) / 0.05);
	var lo = Math.round(245 - 160 * m);
	if (Math.abs(d) < 0.0005)
		return "rgb(236,236,236)";
	return d > 0 ? "rgb(245," + lo + "," + lo + ")" :
		"rgb(" + lo + "," + Math.round(lo + 30 * m) + ",245)";
}

/* --- layout & drawing ------------------------------------------------- */
function nodeIsAncestorOf(a, b) {
	for (; b >= 0; b = tree.parent[b])
		if (b === a)
			return true;
	return false;
}

/* The rows drawn when zoomed on z at width W: down to the deepest frame
 * at least MIN_SEE wide. */
var levels = 1;
function visibleLevels(z) {
	var scale = W / (tree.tot[z] || 1), max = tree.depth[z];
	var stack = [z];
	while (stack.length) {
		var i = stack.pop();
		if (tree.depth[i] > max)
			max = tree.depth[i];
		for (var k = tree.first[i]; k >= 0; k = tree.next[k])
			if (tree.tot[k] * scale >= MIN_SEE)
				stack.push(k);
	}
	return max + 1;
}

var wrap = document.getElementById("wrap");
function resize() {
	var dpr = window.devicePixelRatio || 1;
	W = wrap.clientWidth - 32;
	if (W < 200)
		W = 200;
	levels = visibleLevels(zoom);
	var h = Math.min(32000, levels * ROW + 4);
	canvas.style.height = h + "px";
	/* the graph scrolls inside what is left of the window below the
	 * header, leaving a line for the details */
	var top = wrap.getBoundingClientRect().top + window.pageYOffset;
	wrap.style.maxHeight = Math.max(240, Math.round(
		window.innerHeight - top - 40)) + "px";
	canvas.width = Math.round(W * dpr);
	canvas.height = Math.round(h * dpr);
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.font = "11.5px ui-monospace, 'DejaVu Sans Mono', monospace";
	CHW = ctx.measureText("mmmmmmmmmm").width / 10;
}

function rowY(d) {
	/* top-down: root at the bottom (a flame); inverted: root on top */
	var H = levels * ROW;
	return isInverted ? d * ROW : H - (d + 1) * ROW;
}

function label(i) {
	return i === 0 ? (isInverted ? "all (leaf functions above)" :
			  "all") : fname(tree.frame[i]);
}

function drawBox(i, x, w, d, dim) {
	var y = rowY(d);
	var f = tree.frame[i];
	var matched = frameMatch && i > 0 && frameMatch[f];
	ctx.fillStyle = matched ? "rgb(214,59,208)" :
		i === 0 ? "rgb(140,150,165)" :
		DIFF ? diffColour(i) : colour(f);
	ctx.globalAlpha = dim ? 0.45 : 1;
	ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), ROW - 1);
	var r = rows[d];
	r.push(x, x + w, i);
	if (w > 3 * CHW && i > 0)
		labelled.push(i);
	if (w > 3 * CHW) {
		var t = label(i), max = Math.floor((w - 6) / CHW);
		if (t.length > max)
			t = max > 2 ? t.slice(0, max - 2) + ".." : "";
		if (t) {
			ctx.fillStyle = matched || (i === 0 && !dim) ? "#fff" :
				"#111";
			ctx.fillText(t, x + 3, y + ROW - 5.5);
		}
	}
	ctx.globalAlpha = 1;
}

/* Draw; keep: keep the part of the graph in view (its distance from the
 * root), else scroll to the root (bottom of a flame, top of an icicle). */
function draw(keep) {
	var fromRoot = 0;
	if (keep)
		fromRoot = isInverted ? wrap.scrollTop :
			wrap.scrollHeight - wrap.clientHeight - wrap.scrollTop;
	resize();
	ctx.clearRect(0, 0, W, canvas.height);
	rows = [];
	labelled = [];
	for (var d = 0; d <= levels; d++)
		rows.push([]);
	/* ancestors of the zoomed node: full width, dimmed */
	var chain = [];
	for (var a = zoom; a >= 0; a = tree.parent[a])
		chain.push(a);
	for (var c = chain.length - 1; c > 0; c--)
		drawBox(chain[c], 0, W, tree.depth[chain[c]], true);
	var scale = W / (tree.tot[zoom] || 1);
	/* iterative preorder walk of the zoomed subtree */
	var stack = [zoom, 0];
	while (stack.length) {
		var x = stack.pop(), i = stack.pop();
		var w = tree.tot[i] * scale;
		drawBox(i, x, w, tree.depth[i], false);
		if (tree.depth[i] + 1 >= levels)
			continue;
		var cx = x, kids = [];
		for (var k = tree.first[i]; k >= 0; k = tree.next[k]) {
			var kw = tree.tot[k] * scale;
			if (kw >= MIN_DRAW)
				kids.push(k, cx);
			cx += kw;
		}
		for (var q = kids.length - 2; q >= 0; q -= 2)
			stack.push(kids[q], kids[q + 1]);
	}
	wrap.scrollTop = isInverted ? fromRoot :
		wrap.scrollHeight - wrap.clientHeight - fromRoot;
	crumbs();
}

function pct(a, b) {
	if (!b)
		return "0%";
	var p = 100 * a / b;
	return (p >= 10 ? p.toFixed(1) : p >= 0.1 ? p.toFixed(2) :
		p.toPrecision(2)) + "%";
}

function crumbs() {
	var el = document.getElementById("crumbs");
	document.getElementById("reset").disabled = zoom === 0;
	if (zoom === 0) {
		el.textContent = isInverted ?
			"Inverted view: the top row holds the functions where samples were taken; below them, their callers." :
			"Top-down view: the bottom row is the whole profile; each frame's callees stand on it.";
		return;
	}
	var parts = [];
	for (var a = zoom; a > 0; a = tree.parent[a])
		parts.unshift(label(a));
	el.textContent = "Zoomed: " + parts.join(" \u2192 ") + " (" +
		pct(tree.tot[zoom], tree.tot[0]) + " of all)";
}

/* --- interaction ------------------------------------------------------ */
function hit(ev) {
	var rect = canvas.getBoundingClientRect();
	var x = ev.clientX - rect.left, y = ev.clientY - rect.top;
	var H = levels * ROW;
	var d = isInverted ? Math.floor(y / ROW) :
		Math.floor((H - y) / ROW);
	var r = rows[d];
	if (!r)
		return -1;
	for (var k = 0; k < r.length; k += 3)
		if (x >= r[k] && x < r[k + 1])
			return r[k + 2];
	return -1;
}

/* A weight as people read it: nanoseconds as a time with three significant
 * digits ("2.90 s", "58.2 ms", as the text report), else the count. */
var TIME_UNIT = D.unit === "nanoseconds";
function tfmt(v) {
	var u = [[1e9, "s"], [1e6, "ms"], [1e3, "us"]];
	for (var k = 0; k < u.length; k++) {
		if (v >= 0.9995 * u[k][0]) {
			var x = v / u[k][0];
			return x.toFixed(x >= 99.95 ? 0 : x >= 9.995 ? 1 : 2) +
				" " + u[k][1];
		}
	}
	return Math.round(v) + " ns";
}
function wnum(v) { return TIME_UNIT ? tfmt(v) : v.toLocaleString(); }
function wtext(v) {
	return TIME_UNIT ? tfmt(v) : v.toLocaleString() + " " + (D.unit || "samples");
}

function describe(i) {
	var f = tree.frame[i], T = tree.tot[0] || 1;
	var h = "<b>" + esc(label(i)) + "</b>";
	if (i > 0) {
		var k = KINDS[fkind(f)] || KINDS[7];
		h += '<span class="k">kind</span> ' + esc(k[0]) + "<br>";
		if (ffile(f))
			h += '<span class="k">file</span> ' + esc(ffile(f)) + "<br>";
		if (fdso(f))
			h += '<span class="k">object</span> ' + esc(fdso(f)) + "<br>";
	}
	var u = TIME_UNIT ? "time" : D.unit || "samples";
	h += '<span class="k">' + u + "</span> " + wnum(tree.tot[i]) +
		" (" + pct(tree.tot[i], T) + " of all";
	if (zoom > 0)
		h += ", " + pct(tree.tot[i], tree.tot[zoom]) + " of zoom";
	h += ")<br>";
	var selfv = isInverted ? (tree.first[i] < 0 ? tree.tot[i] : 0) :
		tree.self[i];
	if (!isInverted && i > 0)
		h += '<span class="k">self</span> ' + wnum(selfv) +
			" (" + pct(selfv, T) + ")<br>";
	if (DIFF) {
		var o = tree.tot0[i], T0 = tree.tot0[0] || 1;
		var dd = 100 * (tree.tot[i] / T - o / T0);
		h += '<span class="k">old</span> ' + wnum(o) + " (" +
			pct(o, T0) + ")<br>" + '<span class="k">change</span> ' +
			(dd >= 0 ? "+" : "") + dd.toFixed(2) +
			" points of all samples<br>";
	}
	return h;
}

canvas.addEventListener("mousemove", function (ev) {
	var i = hit(ev);
	if (i < 0) {
		tip.style.display = "none";
		return;
	}
	tip.innerHTML = describe(i);
	tip.style.display = "block";
	var tx = ev.clientX + 14, ty = ev.clientY + 14;
	if (tx + tip.offsetWidth > window.innerWidth - 8)
		tx = ev.clientX - tip.offsetWidth - 10;
	if (ty + tip.offsetHeight > window.innerHeight - 8)
		ty = ev.clientY - tip.offsetHeight - 10;
	tip.style.left = Math.max(4, tx) + "px";
	tip.style.top = Math.max(4, ty) + "px";
	details.textContent = label(i) + " \u2014 " + wtext(tree.tot[i]) +
		", " + pct(tree.tot[i], tree.tot[0]);
});
canvas.addEventListener("mouseleave", function () {
	tip.style.display = "none";
});
canvas.addEventListener("click", function (ev) {
	var i = hit(ev);
	if (i < 0)
		return;
	zoom = i === zoom ? Math.max(tree.parent[i], 0) : i;
	draw();
});

function setView(inv) {
	if (inv === isInverted)
		return;
	if (inv && !inverted)
		inverted = buildInverted(topdown);
	isInverted = inv;
	tree = inv ? inverted : topdown;
	zoom = 0;
	document.getElementById("v-flame").setAttribute("aria-pressed", !inv);
	document.getElementById("v-inverted").setAttribute("aria-pressed", inv);
	search(true);
}
document.getElementById("v-flame").onclick = function () { setView(false); };
document.getElementById("v-inverted").onclick = function () { setView(true); };
document.getElementById("reset").onclick = function () {
	zoom = 0;
	draw();
};

var sInput = document.getElementById("search");
/* reroot: a new view, scrolled to its root (else the view is kept) */
function search(reroot) {
	var q = sInput.value, info = document.getElementById("matchinfo");
	frameMatch = null;
	if (q) {
		try {
			matchRe = new RegExp(q, "i");
		} catch (e) {
			matchRe = new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g,
						 "\\$&"), "i");
		}
		frameMatch = new Uint8Array(NF);
		for (var f = 0; f < NF; f++)
			frameMatch[f] = matchRe.test(fname(f)) ||
				(ffile(f) && matchRe.test(ffile(f))) ? 1 : 0;
		/* samples under a match, each counted once: nodes that
		 * match with no matching ancestor */
		var sum = 0, under = new Uint8Array(tree.n);
		for (var i = 1; i < tree.n; i++) {
			var p = tree.parent[i];
			if (under[p]) {
				under[i] = 1;
			} else if (frameMatch[tree.frame[i]]) {
				under[i] = 1;
				sum += tree.tot[i];
			}
		}
		info.textContent = "Matched: " + pct(sum, tree.tot[0]) + " (" +
			wtext(sum) + ")";
	} else {
		info.textContent = "";
	}
	draw(reroot !== true);
}
var timer = 0;
sInput.addEventListener("input", function () {
	clearTimeout(timer);
	timer = setTimeout(search, 120);
});
document.getElementById("clear").onclick = function () {
	sInput.value = "";
	search();
};
document.addEventListener("keydown", function (ev) {
	if (ev.key === "Escape") {
		if (document.activeElement === sInput && sInput.value) {
			sInput.value = "";
			search();
		} else {
			zoom = 0;
			draw();
		}
	} else if ((ev.ctrlKey || ev.metaKey) && ev.key === "f") {
		ev.preventDefault();
		sInput.focus();
	}
});
var rt = 0;
window.addEventListener("resize", function () {
	clearTimeout(rt);
	rt = setTimeout(function () { draw(true); }, 60);
});

/* --- the timeline (wall and off-cpu clocks) ------------------------------
 * One lane per thread: when it ran and when it waited, coloured by the
 * reason.  A click on a span, or a drag across the lanes, shows the
 * flame graph of that time alone: each node's self weight is made of the
 * spans ending there, cut to the range (microseconds, as the spans).
 * A wait a watched thread ended (record --wakers) links to it: a line
 * from the wait's end to the waker's lane, and a button that shows the
 * waker's span at that moment. */
var tlRange = null;
(function timeline() {
	var T = D.timeline;
	if (!T)
		return;
	var box = document.getElementById("timeline");
	var cv = document.getElementById("tl"), c = cv.getContext("2d");
	var info = document.getElementById("tl-info");
	var all = document.getElementById("tl-all");
	var SP = T.spans, NS = SP.length / 5, NT = T.threads.length;
	var LANE = 15, LABEL = 150, end = 1, k;
	var COL = { "-1": "#2e8b57", 0: "#4a78c2", 1: "#e08a1e",
		    2: "#c2413b", 3: "#8e4fc0", 4: "#b9bec4", 5: "#e3c51b",
		    6: "#3aa39a", 7: "#8a6d55" };
	var orig = topdown.self.slice(), TW = 0, drag = null;
	/* span -> the lane of its waker; the link of the wait clicked */
	var WK = {}, link = null, wbtn = document.getElementById("tl-waker");
	for (k = 0; T.wakes && k + 1 < T.wakes.length; k += 2)
		WK[T.wakes[k]] = T.wakes[k + 1];
	box.hidden = false;
	for (k = 0; k < NS; k++)
		end = Math.max(end, SP[5 * k + 1] + SP[5 * k + 2]);
	document.getElementById("tl-legend").innerHTML =
		[["running", -1]].concat(T.reasons.map(function (r, i) {
			return ["waiting: " + r, i];
		})).map(function (e) {
			return '<span><span class="sw" style="background:' +
				COL[e[1]] + '"></span>' + esc(e[0]) + "</span>";
		}).join("");
	function size() {
		var dpr = window.devicePixelRatio || 1;
		TW = Math.max(300, box.clientWidth - 32);
		var h = NT * LANE + 4;
		cv.style.height = h + "px";
		cv.width = Math.round(TW * dpr);
		cv.height = Math.round(h * dpr);
		c.setTransform(dpr, 0, 0, dpr, 0, 0);
		c.font = "11px ui-monospace, 'DejaVu Sans Mono', monospace";
	}
	function xOf(t) { return LABEL + (TW - LABEL - 2) * t / end; }
	function tOf(x) {
		return Math.max(0, Math.min(end, (x - LABEL) * end /
					    (TW - LABEL - 2)));
	}
	function secs(us) { return (us / 1e6).toFixed(us < 1e6 ? 4 : 3); }
	function paint() {
		c.clearRect(0, 0, TW, NT * LANE + 4);
		c.textBaseline = "middle";
		for (var i = 0; i < NT; i++) {
			var th = T.threads[i];
			c.fillStyle = "#1d232a";
			c.fillText((th[1] + " " + th[2]).slice(0, 20), 2,
				   i * LANE + LANE / 2);
		}
		for (var j = 0; j < NS; j++) {
			var x0 = xOf(SP[5 * j + 1]);
			var w = Math.max(0.5, xOf(SP[5 * j + 1] + SP[5 * j + 2]) - x0);
			c.fillStyle = COL[SP[5 * j + 3]] || "#999";
			c.fillRect(x0, SP[5 * j] * LANE + 1, w, LANE - 2);
		}
		var r = drag || tlRange;
		if (r) {
			c.fillStyle = "rgba(43,108,176,.18)";
			c.strokeStyle = "#2b6cb0";
			var a = xOf(Math.min(r[0], r[1])),
				b = xOf(Math.max(r[0], r[1]));
			c.fillRect(a, 0, Math.max(1, b - a), NT * LANE + 2);
			c.strokeRect(a, 0, Math.max(1, b - a), NT * LANE + 2);
		}
		if (link) {
			var lx = xOf(link.t), y0 = link.from * LANE + LANE / 2,
				y1 = link.to * LANE + LANE / 2;
			c.strokeStyle = "#1d232a";
			c.lineWidth = 1.5;
			c.beginPath();
			c.moveTo(lx, y0);
			c.lineTo(lx, y1);
			c.stroke();
			c.beginPath();
			c.arc(lx, y1, 3, 0, 2 * Math.PI);
			c.fillStyle = "#1d232a";
			c.fill();
			c.lineWidth = 1;
		}
	}
	function lname(i) {
		var th = T.threads[i];
		return th[2] + " " + th[1];
	}
	/* the span of lane at time t (running first), or -1 */
	function spanOf(lane, t) {
		var best = -1;
		for (var j = 0; j < NS; j++)
			if (SP[5 * j] === lane && SP[5 * j + 1] <= t &&
			    t <= SP[5 * j + 1] + SP[5 * j + 2] &&
			    (best < 0 || SP[5 * j + 3] < 0))
				best = j;
		return best;
	}
	/* span j clicked: its waker's link, when it has one */
	function linkFor(j) {
		link = j >= 0 && WK[j] !== undefined ?
			{ from: SP[5 * j], to: WK[j],
			  t: SP[5 * j + 1] + SP[5 * j + 2] } : null;
		wbtn.hidden = !link;
		if (link)
			info.textContent += "; woken by " + lname(link.to) +
				" at " + secs(link.t) + " s";
	}
	wbtn.onclick = function () {
		if (!link)
			return;
		var k = spanOf(link.to, link.t), l = link;
		show(k >= 0 ? [SP[5 * k + 1], SP[5 * k + 1] +
			       Math.max(1, SP[5 * k + 2])] :
		     [Math.max(0, l.t - 1000), l.t]);
		link = l;
		info.textContent += "; " + lname(l.to) + ", which ended " +
			"the wait of " + lname(l.from) + " at " + secs(l.t) + " s";
		paint();
	};
	/* the flame graph of [a, b) (null: the whole run) */
	function show(r) {
		tlRange = r;
		var s = topdown.self;
		if (!r) {
			s.set(orig);
		} else {
			s.fill(0);
			for (var j = 0; j < NS; j++) {
				var a = Math.max(SP[5 * j + 1], r[0]);
				var b = Math.min(SP[5 * j + 1] + SP[5 * j + 2], r[1]);
				if (b > a)
					s[SP[5 * j + 4]] += (b - a) *
						(D.unit === "nanoseconds" ? 1000 : 1);
			}
		}
		topdown.tot.fill(0);
		topdown.sum();
		inverted = null;
		if (isInverted) {
			inverted = buildInverted(topdown);
			tree = inverted;
		}
		zoom = 0;
		all.disabled = !r;
		info.textContent = r ? "showing " + secs(r[0]) + " s to " +
			secs(r[1]) + " s of " + secs(end) + " s" :
			"the whole run (" + secs(end) + " s): click a span or " +
			"drag across the lanes to show that time";
		paint();
		search(true);
	}
	function spanAt(ev) {
		var bx = cv.getBoundingClientRect();
		var lane = Math.floor((ev.clientY - bx.top) / LANE);
		var t = tOf(ev.clientX - bx.left);
		var slack = 2 * end / (TW - LABEL);
		for (var j = NS - 1; j >= 0; j--)
			if (SP[5 * j] === lane && SP[5 * j + 1] - slack <= t &&
			    t <= SP[5 * j + 1] + SP[5 * j + 2] + slack)
				return j;
		return -1;
	}
	cv.addEventListener("mousedown", function (ev) {
		var bx = cv.getBoundingClientRect();
		drag = [tOf(ev.clientX - bx.left), tOf(ev.clientX - bx.left)];
		drag.x = ev.clientX;
	});
	cv.addEventListener("mousemove", function (ev) {
		var bx = cv.getBoundingClientRect();
		if (drag) {
			drag[1] = tOf(ev.clientX - bx.left);
			paint();
			return;
		}
		var j = spanAt(ev);
		if (j < 0) {
			tip.style.display = "none";
			return;
		}
		var th = T.threads[SP[5 * j]], r = SP[5 * j + 3];
		tip.innerHTML = "<b>" + esc(th[1] + " " + th[2]) + "</b>" +
			(r < 0 ? "running" : "waiting: " + esc(T.reasons[r])) +
			"<br>" + secs(SP[5 * j + 1]) + " s, for " +
			(SP[5 * j + 2] / 1000).toFixed(3) + " ms" +
			(WK[j] !== undefined ? "<br>woken by " +
			 esc(lname(WK[j])) : "");
		tip.style.display = "block";
		tip.style.left = Math.min(ev.clientX + 14,
			window.innerWidth - tip.offsetWidth - 8) + "px";
		tip.style.top = (ev.clientY + 14) + "px";
	});
	window.addEventListener("mouseup", function (ev) {
		if (!drag)
			return;
		var d = drag;
		drag = null;
		if (Math.abs(ev.clientX - d.x) > 3) {
			linkFor(-1);
			show([Math.min(d[0], d[1]), Math.max(d[0], d[1])]);
			return;
		}
		var j = spanAt(ev);
		if (j >= 0) {
			show([SP[5 * j + 1], SP[5 * j + 1] +
			      Math.max(1, SP[5 * j + 2])]);
			linkFor(j);
			paint();
		} else {
			paint();
		}
	});
	cv.addEventListener("mouseleave", function () {
		tip.style.display = "none";
	});
	all.onclick = function () {
		linkFor(-1);
		show(null);
	};
	window.addEventListener("resize", function () {
		size();
		paint();
	});
	size();
	info.textContent = "the whole run (" + secs(end) + " s): click a " +
		"span or drag across the lanes to show that time";
	paint();
	/* for tests: where the longest span of lane (a reason's name, or
	 * "running") is, in client coordinates; and the lanes' count */
	window.pyperfTimeline = {
		lanes: function () { return NT; },
		/* the link of the wait clicked: its waker's lane name, or null */
		waker: function () { return link ? lname(link.to) : null; },
		longest: function (lane, reason) {
			var r = reason === "running" ? -1 :
				T.reasons.indexOf(reason), best = -1;
			for (var j = 0; j < NS; j++)
				if (SP[5 * j] === lane && SP[5 * j + 3] === r &&
				    (best < 0 || SP[5 * j + 2] > SP[5 * best + 2]))
					best = j;
			if (best < 0)
				return null;
			var bx = cv.getBoundingClientRect();
			return { x: bx.left + xOf(SP[5 * best + 1] +
						  SP[5 * best + 2] / 2),
				 y: bx.top + lane * LANE + LANE / 2,
				 dur: SP[5 * best + 2] };
		}
	};
})();

/* For tests and scripts: the page's state. */
window.pyperfFlame = {
	/* the timeline's range shown ([from, to] microseconds), or null */
	range: function () { return tlRange; },
	/* the root's weight in the tree drawn */
	total: function () { return tree.tot[0]; },
	nodes: function () { return tree.n; },
	zoomed: function () { return zoom === 0 ? null : label(zoom); },
	inverted: function () { return isInverted; },
	/* full names of the frames drawn with a label */
	labels: function () {
		return labelled.map(function (i) { return label(i); });
	},
	/* names of the drawn frames that are highlighted by the search */
	highlighted: function () {
		var out = [];
		rows.forEach(function (r) {
			for (var k = 0; k < r.length; k += 3)
				if (r[k + 2] > 0 && frameMatch &&
				    frameMatch[tree.frame[r[k + 2]]])
					out.push(label(r[k + 2]));
		});
		return out;
	},
	/* centre of the widest drawn frame called name, canvas pixels */
	locate: function (name) {
		var best = null;
		rows.forEach(function (r, d) {
			for (var k = 0; k < r.length; k += 3) {
				var w = r[k + 1] - r[k];
				if (label(r[k + 2]) === name &&
				    (!best || w > best.w))
					best = { x: r[k] + w / 2,
						 y: rowY(d) + ROW / 2, w: w };
			}
		});
		return best;
	},
	width: function (name) {
		var b = this.locate(name);
		return b ? b.w / W : 0;
	}
};
if (D.inverted)
	setView(true);
else
	draw();
window.pyperfFlame.renderMs = performance.now();
document.body.setAttribute("data-ready", "1");
})();
