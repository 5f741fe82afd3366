/*
 * ext4sim html: draws the state of the model after the selected step from the
 * JSON in the element #data (docs/json.md, docs/html.md).  Only the selected
 * step is drawn; the timeline is one small list item per step.
 */
'use strict';
(function () {
var doc = JSON.parse(document.getElementById('data').textContent);
var sides = [], scen = {};
var sel = { step: 1, a: 0, b: -1, point: 0, col: 0 };

function el(tag, cls, text) {
	var e = document.createElement(tag);
	if (cls) e.className = cls;
	if (text !== undefined && text !== null) e.textContent = String(text);
	return e;
}
function add(parent, tag, cls, text) { var e = el(tag, cls, text); parent.appendChild(e); return e; }
function same(x, y) { return JSON.stringify(x) === JSON.stringify(y); }
function plural(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }
function hex2(b) { return (b < 16 ? '0' : '') + b.toString(16); }

/* Mark @e changed when @cur differs from @prev, and differs when it differs from @oth. */
function flag(e, cur, prev, oth, hasOther) {
	if (!same(cur, prev)) e.classList.add('changed');
	if (hasOther && !same(cur, oth)) e.classList.add('differs');
	return e;
}
function findBy(list, key, val) {
	if (!list) return undefined;
	for (var i = 0; i < list.length; i++) if (list[i][key] === val) return list[i];
	return undefined;
}

/* --- the document: one "side" per variant (or per half of a --diff) --- */
function loadSides() {
	if (doc.patch !== undefined) {
		scen = { name: doc.scenario, file: doc.file, patch: doc.patch };
		doc.variants.forEach(function (p) {
			sides.push({ label: p.variant + ', ' + doc.patch + ' off', v: p.off });
			sides.push({ label: p.variant + ', ' + doc.patch + ' on', v: p.on });
		});
	} else {
		var sc = doc.scenarios[0];
		scen = { name: sc.scenario, file: sc.file };
		sc.variants.forEach(function (v) { sides.push({ label: v.name, v: v }); });
	}
	sides.forEach(function (s) {
		s.points = {};
		s.viol = {};
		s.v.crash_points.forEach(function (p) { (s.points[p.step] = s.points[p.step] || []).push(p); });
		s.v.violations.forEach(function (x) {
			if (s.v.violated.indexOf(x.invariant) >= 0) s.viol[x.step] = true;
		});
	});
	if (sides.length > 1) sel.b = 1;
}

function nsteps() { return sides.length ? sides[0].v.steps.length : 0; }
function stepOf(side, i) { return side.v.steps[i - 1]; }
function stateOf(side, i) { var s = stepOf(side, i); return s ? s.state : null; }

/* The state before step 1: nothing in memory, nothing pending. */
function emptyLike(st) {
	return { i_size: 0, i_disksize: 0, durable_size: 0, orphan: false, extents: [], page_cache: [],
		 journal: st.journal, device: { pending: [], flushes: st.device.flushes, file_blocks: [] },
		 bytes: { runs: [], truncated: false }, counters: st.counters };
}
function prevState(side, i) { return i > 1 ? stateOf(side, i - 1) : emptyLike(stateOf(side, i)); }

/* The byte axis shared by every bar: the largest size or block end any step shows. */
function axisEnd(side) {
	var bs = side.v.config.block_size, end = bs;
	side.v.steps.forEach(function (s) {
		var st = s.state;
		end = Math.max(end, st.i_size, st.i_disksize, st.durable_size || 0);
		st.extents.forEach(function (x) { end = Math.max(end, (x.lblk + x.len) * bs); });
		st.page_cache.forEach(function (f) { end = Math.max(end, (f.index + 1) * 4096); });
	});
	return Math.ceil(end / bs) * bs;
}

/* --- hash: #step=N&a=I&b=J&point=K --- */
function readHash() {
	var h = location.hash.replace(/^#/, '');
	h.split('&').forEach(function (kv) {
		var p = kv.split('='), v = parseInt(p[1], 10);
		if (isNaN(v)) return;
		if (p[0] === 'step') sel.step = v;
		if (p[0] === 'a' && v >= 0 && v < sides.length) sel.a = v;
		if (p[0] === 'b' && v >= -1 && v < sides.length) sel.b = v;
		if (p[0] === 'point') sel.point = v;
		if (p[0] === 'col') sel.col = v;
	});
	sel.step = Math.min(Math.max(sel.step, 1), Math.max(nsteps(), 1));
}
function writeHash() {
	var h = '#step=' + sel.step;
	if (sides.length > 1) h += '&a=' + sel.a + '&b=' + sel.b;
	if (sel.point) h += '&point=' + sel.point;
	if (sel.col) h += '&col=' + sel.col;
	if (location.hash !== h) history.replaceState(null, '', h);
}

/* --- the header: scenario, side selectors, legend --- */
function sideSelect(id, value, withNone) {
	var s = el('select');
	s.id = id;
	if (withNone) add(s, 'option', '', '(none)').value = '-1';
	sides.forEach(function (x, i) { add(s, 'option', '', x.label).value = String(i); });
	s.value = String(value);
	s.addEventListener('change', function () {
		sel[id === 'selA' ? 'a' : 'b'] = parseInt(s.value, 10);
		buildTimeline();
		render();
	});
	return s;
}
function legendItem(parent, cls, text) {
	var span = add(parent, 'span');
	add(span, 'span', 'sw ' + cls);
	span.appendChild(document.createTextNode(text));
}
function buildHeader() {
	var top = document.getElementById('top');
	var t = add(top, 'div');
	add(t, 'h1', '', 'ext4sim: ' + scen.name);
	add(t, 'div', 'file mono', scen.file + (scen.patch ? '   (--diff ' + scen.patch + ': each variant with the patch off and on)' : ''));
	if (sides.length > 1) {
		var s = add(top, 'div');
		add(s, 'label', '', 'left ');
		s.appendChild(sideSelect('selA', sel.a, false));
		add(s, 'label', '', '  right ');
		s.appendChild(sideSelect('selB', sel.b, true));
	}
	var lg = add(top, 'div', 'legend');
	legendItem(lg, 'changed', 'changed by this step');
	if (sides.length > 1) legendItem(lg, 'differs', 'differs from the other side');
	add(lg, 'span', '', 'keys: \u2190 \u2192 step, Home / End; , . event');
	document.title = 'ext4sim: ' + scen.name;
}

/* --- the timeline --- */
function stepDiffers(i) {
	if (sel.b < 0) return false;
	var x = stateOf(sides[sel.a], i), y = stateOf(sides[sel.b], i);
	return !same([x.i_size, x.i_disksize, x.durable_size, x.extents, x.page_cache, x.journal, x.device, x.bytes, x.namespace],
		     [y.i_size, y.i_disksize, y.durable_size, y.extents, y.page_cache, y.journal, y.device, y.bytes, y.namespace]);
}
/* The names of a tree without sizes and contents: what the "names" mark compares. */
function nsShape(ns) { return ns.map(function (e) { return [e.path, e.type, e.ino, e.nlink, e.target]; }); }
var NS_OPS = ['open', 'creat', 'mkdir', 'rmdir', 'link', 'unlink', 'rename', 'symlink'];
/* Did step @i change a name, a type, a link count or which names share an inode? */
function namesChanged(side, i) {
	var st = stepOf(side, i), s = st.state;
	if (!s.namespace) return false;
	if (i === 1) return NS_OPS.indexOf(st.op) >= 0 && st.result === 0;
	var pv = stateOf(side, i - 1);
	return !pv.namespace || !same(nsShape(s.namespace), nsShape(pv.namespace));
}
function timelineItem(i) {
	var a = sides[sel.a], st = stepOf(a, i), pv = prevState(a, i), s = st.state;
	var li = el('li', 'tstep');
	li.dataset.step = String(i);
	add(li, 'span', 'n', i);
	li.appendChild(document.createTextNode(st.text));
	if (s.i_size !== pv.i_size || s.i_disksize !== pv.i_disksize || s.durable_size !== pv.durable_size)
		add(li, 'span', 'mk size', 'size').title = 'a size changed';
	var sidesShown = sel.b >= 0 ? [a, sides[sel.b]] : [a];
	if (sidesShown.some(function (x) { return namesChanged(x, i); })) add(li, 'span', 'mk names', 'names').title = 'the step changed the namespace';
	if (sidesShown.some(function (x) { return x.points[i]; })) add(li, 'span', 'mk crash', 'crash').title = 'crash states judged here';
	if (sidesShown.some(function (x) { return x.viol[i]; })) add(li, 'span', 'mk viol', '!').title = 'a violation';
	if (stepDiffers(i)) add(li, 'span', 'mk dif', '\u2260').title = 'the two sides differ after this step';
	return li;
}
function buildTimeline() {
	var ol = document.getElementById('tl'), n = nsteps(), frag = document.createDocumentFragment();
	ol.textContent = '';
	for (var i = 1; i <= n; i++) frag.appendChild(timelineItem(i));
	ol.appendChild(frag);
	document.getElementById('tlhead').textContent = plural(n, 'step') + ' \u00b7 marks: size, ' +
		(n && stateOf(sides[sel.a], 1).namespace ? 'names, ' : '') + 'crash, ! violation' +
		(sel.b >= 0 ? ', \u2260 sides differ' : '');
}
function showSelected() {
	var ol = document.getElementById('tl'), old = ol.querySelector('.sel');
	if (old) old.classList.remove('sel');
	var li = ol.children[sel.step - 1];
	if (!li) return;
	li.classList.add('sel');
	var top = li.offsetTop - ol.offsetTop, h = ol.clientHeight;
	if (top < ol.scrollTop || top + li.offsetHeight > ol.scrollTop + h)
		ol.scrollTop = Math.max(0, top - h / 3);
}

/* --- bars on the file's byte axis --- */
function pct(x, end) { return (100 * x / end) + '%'; }
function segment(bar, off, len, end, cls, label, title) {
	var d = add(bar, 'div', 'seg ' + cls);
	d.style.left = pct(off, end);
	d.style.width = pct(len, end);
	d.title = title;
	if (len / end * 420 > label.length * 6.5 + 4) d.textContent = label;
	return d;
}
function byteColor(b) {
	if (b === 0) return '#e5e7eb';
	return 'hsl(' + ((b * 47) % 360) + ', 70%, ' + (b === 0xee ? 80 : 62) + '%)';
}
function axisRow(parent, end, unit) {
	var ax = add(parent, 'div', 'axis');
	add(ax, 'span', '', '0');
	add(ax, 'span', '', end + ' ' + unit);
}
function markerRows(wrap, end, marks) {
	var box = add(wrap, 'div', 'marks');
	marks.forEach(function (m) {
		var row = add(box, 'div', 'mrow');
		var line = add(row, 'div', 'mline ' + m.cls);
		var at = Math.min(m.value, end);
		line.style.left = 'calc(' + pct(at, end) + ' - 1px)';
		line.style.top = (-28 - 16 * m.row) + 'px';
		line.style.height = (28 + 16 * m.row) + 'px';
		var lab = add(row, 'div', 'mlabel ' + m.cls, m.label + ' ' + (m.shown !== undefined ? m.shown : m.value));
		if (at / end > 0.6) { lab.style.right = 'calc(' + pct(end - at, end) + ' + 4px)'; }
		else { lab.style.left = 'calc(' + pct(at, end) + ' + 4px)'; }
		m.flagEl(lab);
	});
}

/* --- panels --- */
function panel(parent, title, wide) {
	var p = add(parent, 'section', 'panel' + (wide ? ' wide' : ''));
	add(p, 'h2', '', title);
	return p;
}
function kvRow(tbl, key, value, what) {
	var tr = add(tbl, 'tr');
	add(tr, 'td', '', key);
	var v = add(tr, 'td', 'v', value);
	v.dataset.k = key;
	add(tr, 'td', 'hint', what);
	return v;
}

function panelSizes(ctx) {
	var p = panel(ctx.root, 'File size and bytes'), s = ctx.s, pv = ctx.pv, o = ctx.o, ho = !!o;
	var t = add(p, 'table', 'kv');
	flag(kvRow(t, 'i_size', s.i_size, 'in memory: what read and stat see'), s.i_size, pv.i_size, o && o.i_size, ho);
	flag(kvRow(t, 'i_disksize', s.i_disksize, 'goes into the on-disk inode at its next journaled update'),
	     s.i_disksize, pv.i_disksize, o && o.i_disksize, ho);
	var dur = s.durable_size === null ? 'unmountable' : s.durable_size;
	flag(kvRow(t, 'durable size', dur, 'what a crash now leaves (crash --keep none)'),
	     s.durable_size, pv.durable_size, o && o.durable_size, ho);
	if (s.orphan) add(p, 'div', 'hint', 'the inode is on the orphan list (a truncate in progress)');
	var wrap = add(p, 'div', 'axiswrap'), bar = add(wrap, 'div', 'bar'), end = ctx.end;
	s.bytes.runs.forEach(function (r) {
		var same0 = pv.bytes.runs.some(function (q) { return same(q, r); });
		var d = segment(bar, r.off, r.len, end, '', hex2(r.byte),
				'bytes ' + r.off + '\u2013' + (r.off + r.len - 1) + ': 0x' + hex2(r.byte));
		d.style.background = byteColor(r.byte);
		if (!same0) d.classList.add('changed');
	});
	if (ho && !same(s.bytes, o.bytes)) bar.classList.add('differs');
	var mk = function (key, cls, label, row) {
		return { value: s[key] === null ? 0 : s[key], cls: cls, label: label, row: row,
			 flagEl: function (e) { flag(e, s[key], pv[key], o && o[key], ho); } };
	};
	markerRows(wrap, end, [mk('i_size', 'm-isize', 'i_size', 0), mk('i_disksize', 'm-disksize', 'i_disksize', 1),
			       mk('durable_size', 'm-durable', 'durable', 2)]);
	axisRow(p, end, 'bytes');
	add(p, 'div', 'hint', 'The file as a reader sees it, as runs of equal bytes (the label is the byte, in hex; grey: zeros; hatched: beyond i_size).' +
	    (s.bytes.truncated ? ' Only the first 256 runs are shown.' : ''));
	return p;
}

function extentText(x, bs) {
	var r = 'blocks ' + x.lblk + (x.len > 1 ? '\u2013' + (x.lblk + x.len - 1) : '') + ' (bytes ' + x.lblk * bs + '\u2013' +
		((x.lblk + x.len) * bs - 1) + '): ' + x.state;
	if (x.pblk !== undefined) r += ', disk ' + x.pblk + (x.len > 1 ? '\u2013' + (x.pblk + x.len - 1) : '');
	return r;
}
function panelExtents(ctx) {
	var p = panel(ctx.root, 'Extent map'), s = ctx.s, bs = ctx.bs, end = ctx.end;
	var bar = add(add(p, 'div', 'axiswrap'), 'div', 'bar');
	var ul = el('ul', 'list');
	s.extents.forEach(function (x) {
		var lab = x.lblk + (x.len > 1 ? '\u2013' + (x.lblk + x.len - 1) : '') + (x.pblk !== undefined ? ' @' + x.pblk : '') + ' ' + x.state;
		var seg = segment(bar, x.lblk * bs, x.len * bs, end, 'ext-' + x.state, lab, extentText(x, bs));
		var li = add(ul, 'li', '', extentText(x, bs));
		var prevHas = ctx.pv.extents.some(function (q) { return same(q, x); });
		var othHas = ctx.o && ctx.o.extents.some(function (q) { return same(q, x); });
		[seg, li].forEach(function (e) {
			if (!prevHas) e.classList.add('changed');
			if (ctx.o && !othHas) e.classList.add('differs');
		});
	});
	axisRow(p, end / bs, 'blocks of ' + bs + ' bytes');
	if (!s.extents.length) add(ul, 'li', 'hint', 'no extent: no block of the file is mapped or reserved');
	p.appendChild(ul);
	var lg = add(p, 'div', 'legend');
	legendItem(lg, 'ext-written', 'written: on disk, readable');
	legendItem(lg, 'ext-unwritten', 'unwritten: allocated, reads as zeros until converted');
	legendItem(lg, 'ext-delayed', 'delayed: reserved, no disk block yet');
	return p;
}

/* A buffer's main state, its colour class and the short codes of its BH_ bits. */
var BH_CODES = { BH_Uptodate: 'U', BH_Dirty: 'D', BH_Mapped: 'M', BH_New: 'N', BH_Delay: 'dl',
		 BH_Unwritten: 'uw', BH_Async_Write: 'wb', BH_JBDDirty: 'J' };
function bufLook(b) {
	var has = function (f) { return b.state.indexOf(f) >= 0; };
	if (has('BH_Async_Write')) return ['b-wb', 'writeback'];
	if (has('BH_JBDDirty')) return ['b-jdirty', 'journaled'];
	if (has('BH_Delay')) return ['b-delayed', 'delayed'];
	if (has('BH_Dirty')) return ['b-dirty', 'dirty'];
	if (has('BH_Unwritten')) return ['b-unwritten', 'unwritten'];
	if (has('BH_Uptodate')) return ['b-clean', 'clean'];
	return ['b-stale', 'not uptodate'];
}
function folioBox(parent, f, pf, of, ctx) {
	var box = add(parent, 'div', 'folio');
	var fh = add(box, 'div', 'fh');
	add(fh, 'b', '', 'folio ' + f.index);
	add(fh, 'span', '', 'bytes ' + f.index * 4096 + '\u2013' + (f.index * 4096 + 4095));
	var tags = { PG_dirty: ['dirty', 'dirty'], PG_writeback: ['writeback', 'wb'], PG_uptodate: ['uptodate', ''], PG_mkwrite: ['mkwrite', ''] };
	f.flags.forEach(function (fl) { if (tags[fl]) add(fh, 'span', 'tag ' + tags[fl][1], tags[fl][0]).title = fl; });
	var row = add(box, 'div', 'bufs');
	if (!f.buffers.length) {
		var c = add(row, 'div', 'buf b-nobuf');
		add(c, 'div', 'w', 'no buffers');
		add(c, 'div', 'c', f.flags.join(' '));
	}
	f.buffers.forEach(function (b, k) {
		var look = bufLook(b), cell = add(row, 'div', 'buf ' + look[0]);
		add(cell, 'div', 'w', look[1]);
		add(cell, 'div', 'c', b.state.map(function (x) { return BH_CODES[x] || x; }).join(' '));
		add(cell, 'div', 'c', 'blk ' + (f.index * ctx.per + k) + (b.blocknr !== undefined ? ' \u2192 ' + b.blocknr : ''));
		cell.title = 'file block ' + (f.index * ctx.per + k) + ': ' + b.state.join(', ');
		flag(cell, b, pf && pf.buffers[k], of && of.buffers[k], !!ctx.o);
	});
	flag(box, f.flags, pf && pf.flags, of && of.flags, !!ctx.o);
	if (!pf) box.classList.add('changed');
}
function panelCache(ctx) {
	var p = panel(ctx.root, 'Page cache'), s = ctx.s, MAX = 256;
	var lg = add(p, 'div', 'legend');
	[['b-dirty', 'dirty'], ['b-delayed', 'delayed (no block yet)'], ['b-unwritten', 'unwritten'], ['b-wb', 'under writeback'],
	 ['b-jdirty', 'journaled'], ['b-clean', 'uptodate, clean'], ['b-stale', 'not uptodate']].forEach(function (x) { legendItem(lg, x[0], x[1]); });
	add(p, 'div', 'hint', 'One box per 4096-byte folio, one cell per buffer (block).  Codes: U uptodate, D dirty, M mapped, N new, dl delay, uw unwritten, wb async write, J journaled; \u2192 disk block.');
	var fs = add(p, 'div', 'folios');
	s.page_cache.slice(0, MAX).forEach(function (f) {
		folioBox(fs, f, findBy(ctx.pv.page_cache, 'index', f.index), ctx.o && findBy(ctx.o.page_cache, 'index', f.index), ctx);
	});
	if (!s.page_cache.length) add(fs, 'div', 'hint', 'empty: no folio of the file is cached');
	if (s.page_cache.length > MAX) add(p, 'div', 'hint', (s.page_cache.length - MAX) + ' more folio(s) not shown');
	var gone = ctx.pv.page_cache.filter(function (f) { return !findBy(s.page_cache, 'index', f.index); }).length;
	if (gone) add(p, 'div', 'hint', plural(gone, 'folio') + ' left the cache in this step');
	return p;
}

function blockName(b) {
	if (b.what === 'data') return 'data lblk ' + b.lblk + ' (disk ' + b.blocknr + ')';
	return b.what + ' (disk ' + b.blocknr + ')';
}
function txnBox(parent, t, label, pt, ot, hasOther) {
	var box = add(parent, 'div', 'txn');
	if (!t) {
		add(box, 'div', 'hint', 'no ' + label + ' transaction');
		flag(box, t, pt, ot, hasOther);
		return;
	}
	add(box, 'div', 'th', label + ' transaction tid ' + t.tid + ' (' + t.state + ')' + (t.synchronous ? ', synchronous' : ''));
	var ch = add(box, 'div', 'chips');
	add(ch, 'span', 'hint', 'carries: ');
	t.blocks.forEach(function (b) { add(ch, 'span', 'chip', blockName(b)); });
	if (!t.blocks.length) add(ch, 'span', 'hint', 'no block');
	if (t.ordered) {
		var o = t.ordered;
		add(box, 'div', '', 'ordered data: bytes ' + o.start + '\u2013' + o.end + ' [' + o.flags.join(', ') + ']: before the commit block is written, the commit ' +
		    (o.flags.indexOf('write') >= 0 ? 'writes this range\'s dirty data and ' : '') + 'waits for its I/O');
	}
	if (t.revoke.length) add(box, 'div', '', 'revoked: ' + t.revoke.join(', '));
	if (t.freed.length) add(box, 'div', '', 'frees at commit: ' + t.freed.map(function (f) { return f.start + '+' + f.len; }).join(', '));
	flag(box, t, pt, ot, hasOther);
}
/* The log blocks a side ever uses (head, tail and logged transactions over all its steps). */
function logUsed(side) {
	if (side.logEnd !== undefined) return side.logEnd;
	var end = 0;
	side.v.steps.forEach(function (s) {
		var j = s.state.journal;
		end = Math.max(end, j.head, j.tail);
		j.logged.forEach(function (l) { end = Math.max(end, l.start + l.length); });
	});
	side.logEnd = end;
	return end;
}
function logBar(p, j, pj, side) {
	var used = Math.min(j.last, Math.max(logUsed(side) + 2, j.first + 8));
	var span = used - j.first, wrap = add(p, 'div', 'axiswrap'), bar = add(wrap, 'div', 'bar');
	j.logged.forEach(function (l, i) {
		var d = segment(bar, l.start - j.first, l.length, span, '', 'tid ' + l.tid, 'tid ' + l.tid + ': log blocks ' + l.start + '\u2013' + (l.start + l.length - 1));
		d.style.background = ['#93c5fd', '#a5b4fc', '#99f6e4', '#fcd34d'][i % 4];
		d.style.minWidth = '6px';
		if (!findBy(pj.logged, 'tid', l.tid)) d.classList.add('changed');
	});
	markerRows(wrap, span, [
		{ value: j.tail - j.first, shown: j.tail, cls: 'm-durable', label: 'tail (oldest block still needed):', row: 0,
		  flagEl: function (e) { flag(e, j.tail, pj.tail); } },
		{ value: j.head - j.first, shown: j.head, cls: 'm-isize', label: 'head (next block to write):', row: 1,
		  flagEl: function (e) { flag(e, j.head, pj.head); } }]);
	var ax = add(p, 'div', 'axis');
	add(ax, 'span', '', 'log block ' + j.first);
	add(ax, 'span', '', 'log block ' + (used - 1));
	bar.dataset.span = String(span);
	add(p, 'div', 'hint', 'The bar shows log blocks ' + j.first + '\u2013' + (used - 1) + ', the part this run uses, of ' + j.first + '\u2013' + (j.last - 1) +
	    ' (' + (j.last - j.first) + ' blocks; the rest stays unused).');
}
function panelJournal(ctx) {
	var p = panel(ctx.root, 'Journal (jbd2)'), j = ctx.s.journal, pj = ctx.pv.journal, oj = ctx.o && ctx.o.journal, ho = !!ctx.o;
	var line = add(p, 'div', '', 'committed up to tid ' + j.commit_sequence + ', next tid ' + j.next_tid + ', ' + j.free + ' free log blocks' +
		       (j.aborted ? ', ABORTED' : ''));
	flag(line, [j.commit_sequence, j.next_tid, j.free, j.aborted], [pj.commit_sequence, pj.next_tid, pj.free, pj.aborted],
	     oj && [oj.commit_sequence, oj.next_tid, oj.free, oj.aborted], ho);
	txnBox(p, j.running, 'running', pj.running, oj && oj.running, ho);
	txnBox(p, j.committing, 'committing', pj.committing, oj && oj.committing, ho);
	if (!j.committing) p.lastChild.firstChild.textContent = 'no committing transaction (a commit runs to its end within a step: its work is in the events)';
	add(p, 'h3', '', 'The log: committed transactions not yet released');
	logBar(p, j, pj, ctx.side);
	var ul = add(p, 'ul', 'list');
	j.logged.forEach(function (l) {
		var li = add(ul, 'li', '', 'tid ' + l.tid + ': log blocks ' + l.start + '\u2013' + (l.start + l.length - 1) + ' (' + plural(l.length, 'block') + ')');
		if (!findBy(pj.logged, 'tid', l.tid)) li.classList.add('changed');
	});
	if (!j.logged.length) add(ul, 'li', 'hint', 'empty: every committed transaction is checkpointed');
	add(p, 'h3', '', 'Checkpoint list: blocks to write home before the log space is reused');
	var ch = add(p, 'div', 'chips');
	j.checkpoint.forEach(function (c) {
		var e = add(ch, 'span', 'chip', c.what + ' (disk ' + c.blocknr + ') from tid ' + c.tid);
		if (!pj.checkpoint.some(function (q) { return same(q, c); })) e.classList.add('changed');
	});
	if (!j.checkpoint.length) add(ch, 'span', 'hint', 'empty');
	return p;
}

function pendingRow(tb, w, pd, od, hasOther) {
	var tr = add(tb, 'tr');
	add(tr, 'td', 'v', w.keep);
	add(tr, 'td', '', w.what + (w.fua ? ' (FUA)' : ''));
	add(tr, 'td', '', w.blocknr);
	add(tr, 'td', '', w.kind);
	add(add(tr, 'td'), 'span', 'st ' + w.state, w.state === 'in_flight' ? 'in flight' : 'in the volatile cache');
	var pw = findBy(pd.pending, 'seq', w.seq);
	flag(tr, w.state, pw && pw.state, 0, false);
	if (hasOther && !od.pending.some(function (q) { return q.blocknr === w.blocknr && q.state === w.state && q.kind === w.kind; }))
		tr.classList.add('differs');
}
function panelDevice(ctx) {
	var p = panel(ctx.root, 'Block device'), d = ctx.s.device, pd = ctx.pv.device, bs = ctx.bs;
	add(p, 'h3', '', 'Writes not yet durable (' + d.pending.length + '), numbered as crash --keep counts them');
	if (d.pending.length) {
		var tb = add(p, 'table', 'grid'), hr = add(tb, 'tr');
		['keep', 'what', 'disk block', 'sent by', 'state'].forEach(function (h) { add(hr, 'th', '', h); });
		d.pending.forEach(function (w) { pendingRow(tb, w, pd, ctx.o && ctx.o.device, !!ctx.o); });
		add(p, 'div', 'hint', 'A power cut now may keep any subset of these: crash --keep 1,3 keeps writes 1 and 3, --keep none none of them.');
	} else {
		add(p, 'div', 'hint', 'none: everything the device was given is on the media');
	}
	var fl = add(p, 'div', '', 'cache flushes so far: ' + d.flushes);
	flag(fl, d.flushes, pd.flushes);
	add(p, 'h3', '', 'The file\'s blocks on the device');
	var bar = add(add(p, 'div', 'axiswrap'), 'div', 'bar');
	d.file_blocks.forEach(function (r) {
		var lab = r.lblk + (r.len > 1 ? '\u2013' + (r.lblk + r.len - 1) : '') + ' ' + r.state.replace('_', ' ');
		var seg = segment(bar, r.lblk * bs, r.len * bs, ctx.end, 'fb-' + r.state, lab,
				  'blocks ' + r.lblk + '+' + r.len + ' (disk ' + r.pblk + '): ' + r.state);
		if (!pd.file_blocks.some(function (q) { return same(q, r); })) seg.classList.add('changed');
	});
	axisRow(p, ctx.end / bs, 'blocks');
	var lg = add(p, 'div', 'legend');
	legendItem(lg, 'fb-durable', 'durable: on the media');
	legendItem(lg, 'fb-volatile', 'volatile: in the device cache, lost without a flush');
	legendItem(lg, 'fb-in_flight', 'in flight: sent, not completed');
	return p;
}

/* --- the block timeline: where each version of each block is, event by event --- */
var PLACES = [['cache', 'page cache / buffer'], ['log_pending', 'journal: written, not durable'], ['log_media', 'journal: on the media'],
	      ['home_pending', 'home: written, not durable'], ['home_media', 'home: on the media']];
function tlRowName(r) {
	if (r.kind === 'data') return 'file block ' + r.lblk + (r.blocknr >= 0 ? ' (disk ' + r.blocknr + ')' : ' (no disk block yet)');
	if (r.kind === 'metadata') return r.what + ' (disk ' + r.blocknr + ')';
	return { descriptor: 'TxB: descriptor', commit: 'TxE: commit block', revoke: 'revoke block' }[r.kind] + ' of tid ' + r.tid + ' (disk ' + r.blocknr + ')';
}
function tlColName(c) { return c === 0 ? 'before' : c < 0 ? 'after' : 'e' + c; }
function tlCellClass(place, v) {
	if (!v) return 'tc empty';
	if (v.charAt(0) === '~') return 'tc inflight';
	if (place === 'log_pending' || place === 'home_pending') return 'tc volatile';
	if (place === 'cache') return 'tc mem' + (v.slice(-1) === '*' ? ' dirty' : '');
	return 'tc media';
}
function eventOf(ctx, no) { return findBy(ctx.step.events, 'event', no); }
function eventText(e) {
	var t = e.text.indexOf(e.function + ': ') === 0 ? e.text.slice(e.function.length + 2) : e.text, tail = ' [' + e.cause + ']';
	if (t.slice(-tail.length) === tail) t = t.slice(0, -tail.length);
	return e.function + ': ' + t;
}
/* The newest transaction state event at or before column @k (the commit's phase). */
function tlPhase(ctx, tl, k) {
	var last = null;
	for (var c = 1; c <= k && c < tl.columns.length; c++) {
		var e = tl.columns[c] > 0 ? eventOf(ctx, tl.columns[c]) : null;
		if (e && e.type === 'transaction_state') last = e;
	}
	return last;
}
function tlTable(box, ctx, tl, k) {
	var wrap = add(box, 'div', 'tlwrap'), tb = add(wrap, 'table', 'tlgrid'), hr = add(tb, 'tr');
	add(hr, 'th', 'tlname', 'block / where');
	tl.columns.forEach(function (c, i) {
		var th = add(hr, 'th', 'tlcol' + (i === k ? ' cur' : ''), tlColName(c));
		th.dataset.col = String(i);
		var e = c > 0 ? eventOf(ctx, c) : null;
		th.title = e ? eventText(e) : (c === 0 ? 'before the step' : 'after the step');
	});
	tl.rows.forEach(function (r) {
		var g = add(tb, 'tr', 'tlblock');
		var nm = add(g, 'td', 'tlbname', tlRowName(r));
		nm.colSpan = tl.columns.length + 1;
		PLACES.forEach(function (pl) {
			var cells = r.places[pl[0]];
			if (!cells) return;
			var tr = add(tb, 'tr', 'tlplace');
			tr.dataset.place = pl[0];
			add(tr, 'td', 'tlpname', pl[1]);
			cells.forEach(function (v, i) {
				var td = add(tr, 'td', tlCellClass(pl[0], v) + (i === k ? ' cur' : ''), v.replace(/^~/, ''));
				td.dataset.col = String(i);
				if (i > 0 && v !== cells[i - 1]) td.classList.add('moved');
				var ver = v.replace(/^~/, '').replace(/\*$/, '');
				var bytes = r.versions && r.versions[ver] ? ': bytes ' + r.versions[ver] : '';
				if (v.charAt(0) === '~') td.title = 'in flight: sent to the device, not completed' + bytes;
				else if (bytes) td.title = ver + bytes;
			});
		});
	});
	return wrap;
}
function tlDraw(box, ctx) {
	var tl = ctx.step.timeline, n = tl.columns.length, k = Math.min(Math.max(sel.col, 0), n - 1);
	box.textContent = '';
	var bar = add(box, 'div', 'tlstep');
	var prev = add(bar, 'button', 'tlprev', '\u2190 event'), next = add(bar, 'button', 'tlnext', 'event \u2192');
	prev.disabled = k === 0;
	next.disabled = k === n - 1;
	prev.addEventListener('click', function () { goCol(k - 1); });
	next.addEventListener('click', function () { goCol(k + 1); });
	var range = add(bar, 'input', 'tlrange');
	range.type = 'range';
	range.min = '0';
	range.max = String(n - 1);
	range.value = String(k);
	range.setAttribute('aria-label', 'event');
	range.addEventListener('input', function () { goCol(parseInt(range.value, 10)); });
	add(bar, 'span', 'tlpos', (k + 1) + ' / ' + n);
	var c = tl.columns[k], e = c > 0 ? eventOf(ctx, c) : null;
	var now = add(box, 'div', 'tlnow');
	add(now, 'b', 'mono', tlColName(c));
	now.appendChild(document.createTextNode(' ' + (e ? eventText(e) + (e.cause !== 'step' ? '  [' + e.cause + ']' : '') :
		c === 0 ? 'the state before the step' : 'the state after the step')));
	var ph = tlPhase(ctx, tl, k);
	if (ph) add(box, 'div', 'hint tlphase', 'commit phase: ' + eventText(ph));
	var wrap = tlTable(box, ctx, tl, k);
	var cur = wrap.querySelector('th.cur');
	if (cur && (cur.offsetLeft < wrap.scrollLeft + 160 || cur.offsetLeft > wrap.scrollLeft + wrap.clientWidth - 40))
		wrap.scrollLeft = Math.max(0, cur.offsetLeft - wrap.clientWidth / 2);
	if (tl.truncated) add(box, 'div', 'hint', 'Truncated: the step has more events or blocks than the timeline keeps.');
}
function panelBlocks(ctx) {
	var tl = ctx.step.timeline;
	if (!tl || !tl.rows.length) return null;
	var p = panel(ctx.root, 'Block timeline: where each version of each block is', true);
	var lg = add(p, 'div', 'legend');
	[['tc mem', 'in memory'], ['tc mem dirty', 'dirty (*)'], ['tc inflight', 'in flight to the device'],
	 ['tc volatile', 'in the device\'s volatile cache'], ['tc media', 'on the media']].forEach(function (x) { legendItem(lg, x[0], x[1]); });
	add(lg, 'span', '', 'aa: every byte 0xaa \u00b7 aa/00: two runs \u00b7 vN: the Nth version (a data block\'s bytes as its tooltip) \u00b7 outlined: moved at this event');
	var box = add(p, 'div', 'tlbox');
	box.id = 'tlbox-' + ctx.sideIndex;
	tlBoxes.push({ box: box, ctx: ctx });
	tlDraw(box, ctx);
	return p;
}
var tlBoxes = [];
function goCol(k) {
	var n = 0;
	tlBoxes.forEach(function (b) { n = Math.max(n, b.ctx.step.timeline.columns.length); });
	if (!n) return;
	k = Math.min(Math.max(k, 0), n - 1);
	if (k === sel.col) return;
	sel.col = k;
	tlBoxes.forEach(function (b) { tlDraw(b.box, b.ctx); });
	markEvents();
	writeHash();
}
/* The events list shows the selected column's event. */
function markEvents() {
	document.querySelectorAll('ol.events li.cur').forEach(function (li) { li.classList.remove('cur'); });
	tlBoxes.forEach(function (b) {
		var tl = b.ctx.step.timeline, c = tl.columns[Math.min(sel.col, tl.columns.length - 1)];
		var li = b.ctx.root.querySelector('ol.events li[data-ev="' + c + '"]');
		if (li) li.classList.add('cur');
	});
}

function panelEvents(ctx) {
	var st = ctx.step, p = panel(ctx.root, 'What happened: ' + plural(st.events.length, 'event')), MAX = 5000;
	if (st.why.length) {
		add(p, 'h3', '', 'Why the sizes changed');
		var ul = add(p, 'ul', 'why');
		st.why.forEach(function (w) { add(ul, 'li', '', 'e' + w.event + ' ' + w.text); });
	}
	var ol = add(p, 'ol', 'events');
	st.events.slice(0, MAX).forEach(function (e) {
		var li = add(ol, 'li', 'ev');
		li.dataset.ev = String(e.event);
		add(li, 'span', 'en mono', 'e' + e.event);
		var body = add(li, 'span', 'eb');
		add(body, 'code', 'ef', e.function);
		body.appendChild(document.createTextNode(' '));
		var text = e.text.indexOf(e.function + ': ') === 0 ? e.text.slice(e.function.length + 2) : e.text;
		var tail = ' [' + e.cause + ']';
		if (text.slice(-tail.length) === tail) text = text.slice(0, -tail.length);
		add(body, 'span', 'et', text);
		if (e.cause !== 'step') add(body, 'span', 'ec', e.cause).title = 'what caused it: ' + e.cause;
	});
	if (!st.events.length) add(p, 'div', 'hint', 'no event: the step changed nothing in the model');
	if (st.events.length > MAX) add(p, 'div', 'hint', (st.events.length - MAX) + ' more events not shown');
	return p;
}

/* --- the namespace (a scenario with a namespace step: docs/json.md, "Namespace") --- */
function nsDepth(path) { return path === '/' ? 0 : path.split('/').length - 1; }
function nsName(e) {
	if (e.path === '/') return '/';
	var n = e.path.slice(e.path.lastIndexOf('/') + 1);
	return e.type === 'dir' ? n + '/' : n;
}
function nsWhat(e) {
	return ' ' + e.type + ', inode ' + e.ino + ', nlink ' + e.nlink + (e.type === 'dir' ? '' : ', ' + plural(e.size, 'byte'));
}
/* The other names of @e's inode in @ns (a file's hard links). */
function nsLinks(ns, e) {
	if (e.type === 'dir') return [];
	return ns.filter(function (q) { return q.ino === e.ino && q.path !== e.path; }).map(function (q) { return q.path; });
}
/* One name of the tree: indented by its depth, a link's target, its inode's other names. */
function nsItem(ul, ns, e, gone) {
	var li = add(ul, 'li', 'ns ' + e.type);
	li.style.paddingLeft = (4 + 18 * nsDepth(e.path)) + 'px';
	li.dataset.path = e.path;
	add(li, 'span', 'nsname mono', nsName(e));
	if (e.type === 'lnk') add(li, 'span', 'nstarget mono', ' \u2192 ' + e.target);
	add(li, 'span', 'hint', nsWhat(e) + (e.type === 'reg' ? ', content ' + e.hash.slice(0, 8) : ''));
	var links = gone ? [] : nsLinks(ns, e);
	if (links.length) {
		li.classList.add('hardlink');
		add(li, 'span', 'mk hl', 'hard link: also ' + links.join(', '));
	}
	li.title = e.path + (e.type === 'dir' ? '' : ', content hash ' + e.hash);
	return li;
}
/*
 * The tree @ns (sorted by path, as the JSON gives it), names indented under their
 * directories; against @prev (null: nothing to compare with) a name new or different
 * is marked changed, a name @prev had and @ns lacks is listed struck through.
 */
function nsTree(parent, ns, unreach, orphans, prev) {
	var ul = add(parent, 'ul', 'nstree'), paths = ns.map(function (e) { return e.path; });
	if (prev) prev.forEach(function (q) { if (!findBy(ns, 'path', q.path)) paths.push(q.path); });
	paths.sort(function (a, b) { return a < b ? -1 : a > b ? 1 : 0; });
	paths.forEach(function (path) {
		var e = findBy(ns, 'path', path), q = prev ? findBy(prev, 'path', path) : undefined;
		if (!e) {
			var li = nsItem(ul, prev, q, true);
			li.classList.add('gone', 'changed');
			add(li, 'span', 'hint', ' (gone)');
			return;
		}
		var it = nsItem(ul, ns, e, false);
		if (prev && (!q || !same(q, e))) it.classList.add('changed');
	});
	if (unreach && unreach.length) add(parent, 'div', 'hint', 'inodes in use that no name reaches: ' + unreach.join(', '));
	if (orphans) add(parent, 'div', 'hint', plural(orphans, 'inode') + ' on the orphan list');
	return ul;
}
function panelNamespace(ctx) {
	var s = ctx.s;
	if (!s.namespace) return null;
	var p = panel(ctx.root, 'Namespace: every name after the step', true);
	var tree = nsTree(p, s.namespace, s.namespace_unreachable, s.namespace_orphans, ctx.i > 1 ? ctx.pv.namespace : null);
	if (ctx.o && !same(s.namespace, ctx.o.namespace)) tree.classList.add('differs');
	add(p, 'div', 'hint', 'Each name under its directory, as a reader sees it now (through the page cache): its type, inode, ' +
	    'link count and size; a hard link lists the other names of its inode; highlighted: what the step changed, ' +
	    'struck through: a name it removed.');
	return p;
}

/* --- crash points --- */
var WHERE = { after_step: 'after the step', before_flush: 'inside the step, before a cache flush', before_fua: 'inside the step, before a FUA write' };
function crashState(parent, st, k, n, other, before) {
	var d = add(parent, 'div', 'cstate');
	var th = add(d, 'div', 'th', 'state ' + (k + 1) + ' of ' + n + ': the recovered file is ' + plural(st.size, 'byte') + ' (' +
		     plural(st.raw_states, 'raw state') + ')');
	th.title = 'sha256 ' + st.sha256;
	var by = add(d, 'div', 'cbytes');
	add(by, 'span', 'hint', 'bytes: ');
	add(by, 'code', '', st.bytes);
	if (st.writes) add(d, 'div', '', 'writes ' + st.writes);
	var ex = add(d, 'div', '', 'for example: ');
	add(ex, 'code', '', st.example);
	if (st.replayed_tids.length) add(d, 'div', 'hint', 'recovery replayed tid ' + st.replayed_tids.join(', '));
	var v = add(d, 'div', 'cverdict ' + (st.violations.length ? 'bad' : 'ok'),
		    'verdict: ' + (st.violations.length ? 'violates ' + st.violations.join(', ') : 'no violation'));
	if (st.messages) add(d, 'pre', 'mono', st.messages);
	if (st.namespace) {
		var box = add(d, 'div', 'csns');
		add(box, 'div', 'hint', 'the recovered namespace' + (before ? ' (highlighted: what differs from the tree before the crash)' : ''));
		nsTree(box, st.namespace, st.namespace_unreachable, st.namespace_orphans, before);
	}
	if (other && !other.some(function (q) { return q.size === st.size && q.sha256 === st.sha256; })) d.classList.add('differs');
	return v;
}
function crashPoint(parent, pt, open, other, before) {
	var det = add(parent, 'details', 'cpoint');
	var bad = pt.states.filter(function (s) { return s.violations.length; }).length;
	add(det, 'summary', '', 'crash point ' + pt.point + (pt.hypothetical ? ' (hypothetical) ' : ' ') + WHERE[pt.where] +
	    (pt.inside_commit ? ', committing tid ' + pt.inside_commit : '') + ': ' + plural(pt.unflushed_writes, 'unflushed write') + ', ' +
	    pt.raw_states + ' raw states, ' + pt.states.length + ' distinct, ' + bad + ' violating');
	det.open = open;
	if (pt.pending_writes.length) {
		var tb = add(det, 'table', 'grid'), hr = add(tb, 'tr');
		['write', 'what', 'state', 'sent by'].forEach(function (h) { add(hr, 'th', '', h); });
		pt.pending_writes.forEach(function (w) {
			var tr = add(tb, 'tr');
			add(tr, 'td', 'v', w.write);
			add(tr, 'td', '', w.what + (w.fua ? ' (FUA)' : ''));
			add(add(tr, 'td'), 'span', 'st ' + (w.state === 'in_flight' ? 'in_flight' : 'completed'), w.state.replace('_', ' '));
			add(tr, 'td', 'mono', w.function + (w.event ? ' (e' + w.event + ')' : ''));
		});
	}
	add(det, 'div', 'hint', 'Each state: which writes reached the media, the file after recovery, and whether it is allowed.' +
	    (pt.exhaustive ? '' : '  (sampled: not every state was evaluated)'));
	pt.states.forEach(function (st, k) { crashState(det, st, k, pt.states.length, other && other.states, before); });
}
function panelCrash(ctx) {
	var pts = ctx.side.points[ctx.i];
	if (!pts) return null;
	var p = panel(ctx.root, 'Crash points at this step: what a power cut could leave', true);
	var opts = ctx.otherSide ? ctx.otherSide.points[ctx.i] || [] : null;
	pts.forEach(function (pt, k) {
		var open = sel.point ? sel.point === pt.point : pts.length === 1;
		/* the tree the crash cuts: after the step for a crash after it, else before the step */
		var before = pt.where === 'after_step' && pt.hypothetical ? ctx.s.namespace : ctx.i > 1 ? ctx.pv.namespace : null;
		crashPoint(p, pt, open, opts && (opts[k] || { states: [] }), before || null);
	});
	return p;
}

function violationItem(ul, v, x) {
	var counted = v.violated.indexOf(x.invariant) >= 0;
	var li = add(ul, 'li', counted ? 'counted' : 'info');
	var a = add(li, 'a', '', 'step ' + x.step);
	a.href = '#step=' + x.step;
	li.appendChild(document.createTextNode(': ' + x.invariant + (counted ? '' : ' (a note, not counted)') + ': ' + x.message));
}
/* The variant's configuration as the text run header says it: the mount options as the
 * mount sees them (config.mount: dioread_nolock only where it is used), and how it is
 * judged where that is not the default (judging; 4096 is the default crash bound). */
function configLine(v) {
	var j = v.judging, how = [];
	if (j.crash_everywhere) how.push('crash judged inside every step');
	if (j.crash_bound !== 4096) how.push('crash bound ' + j.crash_bound);
	if (j.fail_on.length) how.push('fail on ' + j.fail_on.join(', '));
	return 'kernel ' + v.kernel + '; block size ' + v.config.block_size + ', data=' + v.config.data + ', ' +
	    v.config.mount + ', ' + v.config.disk_blocks + ' blocks' + (how.length ? '; ' + how.join(', ') : '');
}

function panelVerdict(ctx) {
	var v = ctx.side.v, p = panel(ctx.root, 'Verdict', true);
	var line = add(p, 'div');
	add(line, 'span', 'verdict ' + v.verdict, v.verdict.toUpperCase());
	line.appendChild(document.createTextNode(' ' + (v.verdict === 'pass' ? 'as the scenario expects' : 'not as the scenario expects') +
		'; invariants violated: ' + (v.violated.length ? v.violated.join(', ') : 'none')));
	add(p, 'div', 'hint', configLine(v) + '; ' + plural(v.toggles_on.length, 'patch toggle') + ' on').title =
	    'on: ' + v.toggles_on.join(', ');
	if (v.crash_states_check) add(p, 'div', 'cverdict bad', v.crash_states_check);
	var here = v.violations.filter(function (x) { return x.step === ctx.i; });
	var ul = add(p, 'ul', 'viols');
	here.forEach(function (x) { violationItem(ul, v, x); });
	if (!here.length) add(ul, 'li', 'info', 'nothing reported at this step');
	if (v.violations.length) {
		var det = add(p, 'details');
		add(det, 'summary', 'hint', 'every report of the run (' + v.violations.length + ')');
		var all = add(det, 'ul', 'viols');
		v.violations.forEach(function (x) { violationItem(all, v, x); });
	}
	return p;
}

/* --- one side, then the whole step --- */
function renderSide(parent, side, other, i) {
	var col = add(parent, 'div', 'side'), st = stepOf(side, i), s = st.state;
	var head = add(col, 'div', 'sidehead');
	add(head, 'span', 'name', side.label);
	var res = add(head, 'span', 'note', 'result ' + (st.result === 0 ? '0' : st.result + ' (an error)') + (st.note ? ': ' + st.note : ''));
	if (other && stepOf(other, i).result !== st.result) res.classList.add('differs');
	if (st.writes) add(col, 'div', 'note', 'crash --keep: ' + st.writes);
	var root = add(col, 'div', 'panels');
	var ctx = { root: root, side: side, otherSide: other, i: i, step: st, s: s, pv: prevState(side, i), sideIndex: sides.indexOf(side),
		    o: other ? stateOf(other, i) : null, bs: side.v.config.block_size,
		    per: Math.max(1, 4096 / side.v.config.block_size), end: sel.end };
	panelVerdict(ctx);
	panelCrash(ctx);
	panelNamespace(ctx);
	panelBlocks(ctx);
	panelSizes(ctx);
	panelEvents(ctx);
	panelCache(ctx);
	panelExtents(ctx);
	panelJournal(ctx);
	panelDevice(ctx);
	if (other && other.v.verdict !== side.v.verdict) root.firstChild.classList.add('differs');
}
function render() {
	var main = document.getElementById('main'), n = nsteps();
	main.textContent = '';
	tlBoxes = [];
	if (!n) { add(main, 'p', '', 'The scenario has no step.'); return; }
	var a = sides[sel.a], b = sel.b >= 0 && sel.b !== sel.a ? sides[sel.b] : null, i = sel.step;
	sel.end = Math.max(axisEnd(a), b ? axisEnd(b) : 0);
	var head = add(main, 'div', 'stephead');
	add(head, 'span', 'big', 'Step ' + i + ' of ' + n);
	add(head, 'code', 'big', stepOf(a, i).text);
	var prev = add(head, 'button', '', '\u2190 previous'), next = add(head, 'button', '', 'next \u2192');
	prev.disabled = i === 1;
	next.disabled = i === n;
	prev.addEventListener('click', function () { go(i - 1); });
	next.addEventListener('click', function () { go(i + 1); });
	var wrap = add(main, 'div', 'sides' + (b ? ' two' : ''));
	renderSide(wrap, a, b, i);
	if (b) renderSide(wrap, b, a, i);
	showSelected();
	markEvents();
	writeHash();
	var open = main.querySelector('details.cpoint[open]');
	if (open && sel.point) open.scrollIntoView({ block: 'nearest' });
}
function go(i) {
	var n = nsteps();
	i = Math.min(Math.max(i, 1), n);
	if (i === sel.step) return;
	sel.step = i;
	sel.point = 0;
	sel.col = 0;
	render();
}

function init() {
	loadSides();
	readHash();
	buildHeader();
	buildTimeline();
	document.getElementById('tl').addEventListener('click', function (e) {
		var li = e.target.closest('li.tstep');
		if (li) go(parseInt(li.dataset.step, 10));
	});
	document.addEventListener('keydown', function (e) {
		if (e.target && (e.target.tagName === 'SELECT' || e.target.tagName === 'INPUT') || e.altKey || e.ctrlKey || e.metaKey) return;
		if (e.key === ',' || e.key === '.') {
			e.preventDefault();
			goCol(sel.col + (e.key === '.' ? 1 : -1));
			return;
		}
		var k = { ArrowLeft: sel.step - 1, ArrowRight: sel.step + 1, Home: 1, End: nsteps() }[e.key];
		if (k === undefined) return;
		e.preventDefault();
		go(k);
	});
	window.addEventListener('hashchange', function () {
		readHash();
		render();
	});
	render();
}
init();
})();
