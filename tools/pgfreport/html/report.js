/* SPDX-License-Identifier: GPL-2.0 */
/* pgfreport html: the page's views, drawn from the data pgfreport wrote
 * into #pgf-data with Apache ECharts. window.pgfReport exposes the charts
 * (tests/host/test_html.py drives them in Chromium). */
(function () {
	'use strict';
	const D = JSON.parse(document.getElementById('pgf-data').textContent);
	const charts = {};
	const views = ['overview', 'heatmap', 'mrc', 'reuse', 'wss', 'timeline',
		       'frames'];
	const $ = (id) => document.getElementById(id);

	function fmt(v) {
		if (v === null || v === undefined)
			return '-';
		return typeof v === 'number' && !Number.isInteger(v) ?
			v.toFixed(3) : String(v);
	}

	function bytes(n) {
		const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
		let i = 0;
		while (n >= 1024 && i < u.length - 1) {
			n /= 1024;
			i++;
		}
		return (i ? n.toFixed(n < 10 ? 1 : 0) : n) + ' ' + u[i];
	}

	function table(el, cols, rows, rowClass) {
		const head = '<tr>' + cols.map((c) =>
			`<th class="${c.l ? 'l' : ''}">${c.h}</th>`).join('') + '</tr>';
		el.innerHTML = head + rows.map((r) =>
			`<tr class="${rowClass ? rowClass(r) : ''}">` + cols.map((c) =>
				`<td class="${c.l ? 'l' : ''}">${esc(c.v(r))}</td>`).join('') +
			'</tr>').join('');
	}

	function esc(s) {
		return String(s).replace(/[&<>"]/g, (c) =>
			({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
	}

	/* ---- processes and regions ---- */

	function overview() {
		const byPid = new Map(D.tree.map((p) => [p.pid, p]));
		const depth = (p) => {
			let d = 0;
			for (let q = p; q.parent && byPid.has(q.parent) && d < 64;
			     q = byPid.get(q.parent))
				d++;
			return d;
		};
		/* each process under its creator, in the order they were seen */
		const order = [];
		const kids = new Map();
		D.tree.forEach((p) => {
			const k = byPid.has(p.parent) ? p.parent : 0;
			if (!kids.has(k))
				kids.set(k, []);
			kids.get(k).push(p);
		});
		const walk = (k) => (kids.get(k) || []).forEach((p) => {
			order.push(p);
			if (p.pid !== k)
				walk(p.pid);
		});
		walk(0);
		table($('pgf-tree'), [
			{ h: 'pid', l: true, v: (p) => '\u00a0\u00a0'.repeat(depth(p)) + p.pid },
			{ h: 'parent', v: (p) => p.parent || '-' },
			{ h: 'start ms', v: (p) => fmt(p.start_ms) },
			{ h: 'end ms', v: (p) => fmt(p.end_ms) },
			{ h: 'faults', v: (p) => p.faults },
			{ h: 'major', v: (p) => p.major },
			{ h: 'pages', v: (p) => p.pages },
			{ h: 'lost', v: (p) => p.lost },
			{ h: 'children', v: (p) => p.children },
			{ h: 'status', l: true, v: (p) => p.status },
			{ h: 'command', l: true, v: (p) => p.cmd || '-' },
		], order);
		$('pgf-regions-note').textContent = D.whole ?
			'A tree file read whole: the regions are per process (pgfreport html --pid PID).' :
			`Process ${D.pid}, its last address space; a fault counts for the region of this layout that holds its address (pgfreport summary).`;
		table($('pgf-regions'), [
			{ h: 'start', l: true, v: (r) => r.start },
			{ h: 'end', l: true, v: (r) => r.end },
			{ h: 'perms', l: true, v: (r) => r.perms },
			{ h: 'pages', v: (r) => r.pages },
			{ h: 'touched', v: (r) => r.touched },
			{ h: 'faults', v: (r) => r.faults },
			{ h: 'major', v: (r) => r.major },
			{ h: 'rerefs', v: (r) => r.reref },
			{ h: 'first ms', v: (r) => fmt(r.first_ms) },
			{ h: 'region', l: true, v: (r) => r.name + (r.alive ? '' : ' (removed)') },
		], D.regions, (r) => r.alive ? '' : 'removed');
		$('pgf-files-view').hidden = !D.files.on;
		if (!D.files.on)
			return;
		table($('pgf-files'), [
			{ h: 'pid', v: (f) => f.pid },
			{ h: 'path', l: true, v: (f) => f.path || '-' },
			{ h: 'dev', l: true, v: (f) => f.dev },
			{ h: 'inode', v: (f) => f.inode },
			{ h: 'used', v: (f) => f.used },
			{ h: 'distinct', v: (f) => f.distinct },
			{ h: 'read', v: (f) => f.read },
			{ h: 'write', v: (f) => f.write },
			{ h: 'hit', v: (f) => f.hit },
			{ h: 'miss', v: (f) => f.miss },
			{ h: 'readahead', v: (f) => f.readahead },
			{ h: 'hole', v: (f) => f.hole },
			{ h: 'direct', v: (f) => f.direct },
			{ h: 'hit ratio', v: (f) => fmt(f.hit_ratio) },
			{ h: 'seq runs', v: (f) => f.seq },
			{ h: 'random runs', v: (f) => f.random },
		], D.files.rows.slice().sort((a, b) => b.used - a.used));
	}

	/* ---- the heatmap ---- */

	/* Band b's rows are y = base[b] .. base[b] + rows - 1, low addresses
	 * first: the files' bands at the bottom (--files; their start and end
	 * are pages), then the regions' by start, so the highest addresses
	 * are at the top. */
	function heatLayout() {
		const H = D.heat;
		const bands = H.bands.map((b, i) => Object.assign({ i: i }, b,
			{ s: BigInt('0x' + b.start), e: BigInt('0x' + b.end) }));
		bands.sort((a, b) => (a.file !== b.file ? (a.file ? -1 : 1) :
			a.file ? b.i - a.i : a.s < b.s ? -1 : a.s > b.s ? 1 : 0));
		const base = new Map();
		bands.forEach((b, k) => base.set(b.i, k * H.rows));
		return { bands, base };
	}

	function heatmap(el) {
		const H = D.heat;
		const L = heatLayout();
		const data = [];
		let max = 1;
		L.bands.forEach((b) => {
			const c = b.cells, y0 = L.base.get(b.i);
			for (let k = 0; k < c.length; k += 5) {
				data.push([c[k], y0 + c[k + 1], Math.log10(c[k + 2]) + 1,
					   c[k + 2], c[k + 3], c[k + 4], b.i]);
				if (c[k + 2] > max)
					max = c[k + 2];
			}
		});
		const xs = [];
		for (let x = 0; x < H.cols; x++)
			xs.push(H.by_time ? (x * H.per / 1e6).toFixed(3) : String(x * H.per));
		const ys = [];
		const label = new Map();
		L.bands.forEach((b) => {
			for (let r = 0; r < H.rows; r++)
				ys.push(b.i + ':' + r);
			label.set(L.base.get(b.i) + H.rows / 2, b.name);
		});
		const rowSpan = (b, r) => {
			const span = (b.e - b.s + BigInt(H.rows - 1)) / BigInt(H.rows);
			const lo = b.s + span * BigInt(r);
			let hi = lo + span;
			if (hi > b.e)
				hi = b.e;
			return [lo, hi];
		};
		const byIndex = new Map(L.bands.map((b) => [b.i, b]));
		const chart = echarts.init(el);
		chart.setOption({
			animation: false,
			grid: { left: 220, right: 110, top: 30, bottom: 70 },
			tooltip: {
				position: 'top',
				formatter: (p) => {
					const v = p.data, b = byIndex.get(v[6]);
					const r = v[1] - L.base.get(v[6]);
					const [lo, hi] = rowSpan(b, r);
					const ps = BigInt(D.page_size);
					if (b.file)
						return `<b>${esc(b.name)}</b><br>` +
							`file pages ${lo} - ${hi - 1n} ` +
							`(offsets ${(lo * ps).toString(16)} - ${(hi * ps).toString(16)})<br>` +
							`references <b>${v[3]}</b><br>` +
							`first ${v[4].toFixed(3)} ms, last ${v[5].toFixed(3)} ms`;
					const pages = (hi - lo + ps - 1n) / ps;
					return `<b>${esc(b.name)}</b><br>` +
						`addresses ${lo.toString(16)} - ${hi.toString(16)} ` +
						`(${pages} page${pages === 1n ? '' : 's'}: page ${(lo / ps).toString(16)}` +
						`${pages > 1n ? ' - ' + ((hi - 1n) / ps).toString(16) : ''})<br>` +
						`faults <b>${v[3]}</b><br>` +
						`first ${v[4].toFixed(3)} ms, last ${v[5].toFixed(3)} ms`;
				},
			},
			xAxis: {
				type: 'category', data: xs, name: H.by_time ? 'ms' : 'fault',
				splitArea: { show: false },
			},
			yAxis: {
				type: 'category', data: ys,
				axisLabel: {
					interval: 0,
					formatter: (v, i) => label.has(i) ? label.get(i) : '',
				},
				axisTick: { show: false },
			},
			visualMap: {
				dimension: 2, min: 1, max: Math.log10(max) + 1, calculable: true,
				orient: 'vertical', right: 10, top: 'center',
				text: [String(max), '1'],
				inRange: { color: ['#fde725', '#5ec962', '#21918c', '#3b528b', '#440154'] },
				formatter: (v) => String(Math.round(Math.pow(10, v - 1))),
			},
			dataZoom: [
				{ type: 'inside', xAxisIndex: 0 },
				{ type: 'inside', yAxisIndex: 0 },
				{ type: 'slider', xAxisIndex: 0, bottom: 10 },
				{ type: 'slider', yAxisIndex: 0, left: 10 },
			],
			series: [{
				type: 'heatmap', data: data,
				/* every cell in one frame: no progressive drawing */
				progressive: 1e9, progressiveThreshold: 1e9,
				encode: { x: 0, y: 1, value: 2 },
				emphasis: { itemStyle: { borderColor: '#000', borderWidth: 1 } },
			}],
		});
		return chart;
	}

	/* ---- the charts ---- */

	function lines(el, o) {
		const chart = echarts.init(el);
		chart.setOption(Object.assign({
			animation: false,
			tooltip: { trigger: 'axis' },
			legend: { top: 0 },
			grid: { left: 80, right: 80, top: 60, bottom: 100 },
			dataZoom: [{ type: 'inside' }, { type: 'slider', bottom: 10 }],
		}, o));
		return chart;
	}

	function mrc(el) {
		const M = D.mrc;
		const s = (name, v) => ({
			name: name, type: 'line', showSymbol: M.sizes.length < 40,
			data: M.sizes.map((x, i) => [x, v[i]]),
		});
		const F = D.files;
		const k = F.on && F.hit + F.miss ? `; the kernel's page cache: ${F.hit} hits, ` +
			`${F.miss} misses of the file references ` +
			`(${(100 * F.hit / (F.hit + F.miss)).toFixed(1)}% hit), ` +
			`${F.readahead} pages read ahead` : '';
		return lines(el, {
			title: { text: `Miss-ratio curves: ${M.refs} references to ${M.pages} pages${k}`,
				 left: 'center', top: 22, textStyle: { fontSize: 13 } },
			xAxis: { type: 'log', logBase: 2, name: 'cache size (pages)',
				 nameLocation: 'middle', nameGap: 30 },
			yAxis: { type: 'value', min: 0, max: 1, name: 'miss ratio' },
			series: [s('LRU', M.lru), s('FIFO', M.fifo), s('CLOCK', M.clock),
				 s('OPT', M.opt)],
		});
	}

	function reuse(el) {
		const R = D.reuse;
		let cum = 0;
		const rows = [['cold', R.cold]].concat(R.bins);
		const share = rows.map((b) => R.refs ? b[1] / R.refs : 0);
		const cumul = rows.map((b, i) => {
			if (i)
				cum += b[1];
			return i && R.refs ? cum / R.refs : null;
		});
		return lines(el, {
			title: { text: `Reuse distances: ${R.refs} references, ${R.cold} cold`,
				 left: 'center', top: 22, textStyle: { fontSize: 13 } },
			xAxis: { type: 'category', data: rows.map((b) => b[0]),
				 name: 'distance (pages)', nameLocation: 'middle', nameGap: 30 },
			yAxis: [{ type: 'value', name: 'share of references', min: 0 },
				{ type: 'value', name: 'LRU hit ratio', min: 0, max: 1 }],
			series: [{ name: 'share', type: 'bar', data: share },
				 { name: 'cumulative (LRU hit ratio)', type: 'line', yAxisIndex: 1,
				   data: cumul }],
		});
	}

	function wss(el) {
		const W = D.wss;
		return lines(el, {
			title: { text: `Working-set curve: ${W.refs} references`, left: 'center',
				 top: 22, textStyle: { fontSize: 13 } },
			xAxis: { type: 'log', logBase: 2, name: 'window tau (references)',
				 nameLocation: 'middle', nameGap: 30 },
			yAxis: [{ type: 'log', logBase: 2, name: 'mean working set (pages)' },
				{ type: 'value', name: 'fault rate', min: 0, max: 1 }],
			series: [{ name: 's(tau)', type: 'line',
				   data: W.points.map((p) => [p[0], p[1]]) },
				 { name: 'fault rate', type: 'line', yAxisIndex: 1,
				   data: W.points.map((p) => [p[0], p[2]]) }],
		});
	}

	function timeline(el) {
		const T = D.timeline;
		const s = (name, v) => ({
			name: name, type: 'line', showSymbol: false, sampling: 'lttb',
			data: T.t_ms.map((t, i) => [t, v[i]]),
		});
		return lines(el, {
			title: { text: `Per ${T.interval_ms} ms interval; working set over ` +
				       `${T.window} intervals`, left: 'center', top: 22,
				 textStyle: { fontSize: 13 } },
			xAxis: { type: 'value', name: 'ms', nameLocation: 'middle', nameGap: 30 },
			yAxis: { type: 'value', name: 'pages' },
			series: [s('pages faulted', T.pages), s('working set', T.ws),
				 s('footprint', T.footprint), s('faults', T.faults)],
		});
	}

	/* ---- the frames (a trace read with CAP_SYS_ADMIN) ---- */

	function frameTables() {
		const F = D.frames;
		const C = D.changes;
		$('pgf-frames-link').hidden = !F.on && !C.on;
		if (C.on)
			changeTables();
		if (!F.on)
			return;
		$('pgf-frames-note').textContent = `${F.with} of ${F.faults} faults ` +
			`carry the frame they mapped; ${F.distinct} distinct frames ` +
			`(${bytes(F.distinct * D.page_size)}) (pgfreport frames).`;
		table($('pgf-frames-nodes'), [
			{ h: 'node', v: (n) => n.node < 0 ? '-' : n.node },
			{ h: 'faults', v: (n) => n.faults },
			{ h: 'frames', v: (n) => n.frames },
			{ h: 'size', v: (n) => bytes(n.frames * D.page_size) },
		], F.nodes);
		table($('pgf-frames-sizes'), [
			{ h: 'page size', l: true, v: (s) => bytes(s.page_size) },
			{ h: 'level', l: true, v: (s) => s.level },
			{ h: 'faults', v: (s) => s.faults },
			{ h: 'frames', v: (s) => s.frames },
		], F.sizes);
	}

	/* ---- the kernel's changes to the frames (format version 9) ---- */

	const kinds = ['moved', 'evicted', 'split', 'collapsed', 'mapped by a fault'];

	function changeTables() {
		const C = D.changes;
		$('pgf-changes-view').hidden = false;
		$('pgf-changes-note').textContent = `${C.records} changes the kernel ` +
			`made to the frames of ${C.pages} pages without the process ` +
			'faulting (pgfreport frames).';
		table($('pgf-changes-causes'), [
			{ h: 'change', l: true, v: (k) => k.change },
			{ h: 'cause', l: true, v: (k) => k.cause },
			{ h: 'page size', l: true, v: (k) => k.page_size ? bytes(k.page_size) : '-' },
			{ h: 'level', l: true, v: (k) => k.level || '-' },
			{ h: 'records', v: (k) => k.records },
			{ h: 'pages', v: (k) => k.pages },
		], C.causes);
		table($('pgf-changes-nodes'), [
			{ h: 'node', v: (n) => n.node < 0 ? '-' : n.node },
			{ h: 'moved in', v: (n) => n.moved_in },
			{ h: 'moved out', v: (n) => n.moved_out },
			{ h: 'evicted', v: (n) => n.evicted },
			{ h: 'collapsed', v: (n) => n.collapsed },
		], C.nodes);
	}

	function changes(el) {
		const C = D.changes;
		const chart = echarts.init(el);
		const data = [];
		let max = 1;
		C.rows.forEach((r, y) => r.cells.forEach((c, x) => {
			const v = c.reduce((a, b) => a + b, 0);
			if (v) {
				data.push([x, y, Math.log10(v + 1), v]);
				max = Math.max(max, v);
			}
		}));
		const label = (r) => `${r.start}-${r.end} ${r.name}`;
		chart.setOption({
			animation: false,
			tooltip: {
				formatter: (p) => {
					const r = C.rows[p.value[1]];
					const c = r.cells[p.value[0]];
					const t = p.value[0] * C.interval_ns / 1e6;
					return `${esc(label(r))}<br>` +
						`${t.toFixed(3)} - ${(t + C.interval_ns / 1e6).toFixed(3)} ms<br>` +
						kinds.map((k, i) => c[i] ? `${k} ${c[i]}` : '')
							.filter((x) => x).join(', ');
				},
			},
			grid: { left: 260, right: 80, top: 30, bottom: 80 },
			xAxis: { type: 'category', name: 'ms from the first change',
				 nameLocation: 'middle', nameGap: 30,
				 data: Array.from({ length: C.cols }, (_, i) =>
					 (i * C.interval_ns / 1e6).toFixed(1)) },
			yAxis: { type: 'category', data: C.rows.map(label) },
			visualMap: { min: 0, max: Math.log10(max + 1), dimension: 2,
				     calculable: false, orient: 'vertical', right: 10,
				     top: 'center', text: [`${max}`, '1'],
				     inRange: { color: ['#d0e1f2', '#4a98c9', '#08306b'] } },
			dataZoom: [{ type: 'inside', xAxisIndex: 0 },
				   { type: 'slider', xAxisIndex: 0, bottom: 10 }],
			series: [{ type: 'heatmap', data: data }],
		});
		return chart;
	}

	function frames(el) {
		const F = D.frames;
		if (D.changes.on && !charts.changes)
			charts.changes = changes($('pgf-changes'));
		$('pgf-frames-part').hidden = !F.on;
		if (!F.on)
			return charts.changes;
		const chart = echarts.init(el);
		const data = [];
		let max = 1;
		F.blocks.forEach((b, y) => b.cells.forEach((v, x) => {
			if (v) {
				data.push([x, y, Math.log10(v + 1), v]);
				max = Math.max(max, v);
			}
		}));
		const label = (b) => '0x' + b.start + (b.node < 0 ? '' : ` (node ${b.node})`);
		chart.setOption({
			animation: false,
			tooltip: {
				formatter: (p) => {
					const b = F.blocks[p.value[1]];
					const t = p.value[0] * F.interval_ns / 1e6;
					return `${label(b)} - ${bytes(F.block)}<br>` +
						`${t.toFixed(3)} - ${(t + F.interval_ns / 1e6).toFixed(3)} ms` +
						`<br>faults ${p.value[3]}`;
				},
			},
			grid: { left: 200, right: 80, top: 30, bottom: 80 },
			xAxis: { type: 'category', name: 'ms from the first fault',
				 nameLocation: 'middle', nameGap: 30,
				 data: Array.from({ length: F.cols }, (_, i) =>
					 (i * F.interval_ns / 1e6).toFixed(1)) },
			yAxis: { type: 'category', data: F.blocks.map(label) },
			visualMap: { min: 0, max: Math.log10(max + 1), dimension: 2,
				     calculable: false, orient: 'vertical', right: 10,
				     top: 'center', text: [`${max}`, '1'],
				     inRange: { color: ['#fde0c5', '#e34a33', '#7f0000'] } },
			dataZoom: [{ type: 'inside', xAxisIndex: 0 },
				   { type: 'slider', xAxisIndex: 0, bottom: 10 }],
			series: [{ type: 'heatmap', data: data }],
		});
		return chart;
	}

	const draw = { heatmap: heatmap, mrc: mrc, reuse: reuse, wss: wss,
		       timeline: timeline, frames: frames };
	const holder = { heatmap: 'pgf-heat', mrc: 'pgf-mrc', reuse: 'pgf-reuse',
			 wss: 'pgf-wss', timeline: 'pgf-timeline', frames: 'pgf-frames' };

	function show(v) {
		if (views.indexOf(v) < 0)
			v = 'overview';
		views.forEach((w) => {
			$('v-' + w).classList.toggle('on', w === v);
		});
		document.querySelectorAll('#pgf-nav a').forEach((a) =>
			a.classList.toggle('on', a.getAttribute('href') === '#' + v));
		if (draw[v]) {
			if (!charts[v])
				charts[v] = draw[v]($(holder[v]));
			else
				charts[v].resize();
		}
		window.pgfReport.view = v;
		return charts[v];
	}

	$('pgf-file').textContent = D.file + (D.pid ? ` (process ${D.pid})` : '') +
		(D.filtered ? ', filtered' : '');
	$('pgf-notes').innerHTML = D.notes.concat(D.lost ?
		[`${D.lost} records were lost: the trace is incomplete`] : [])
		.map((n) => `<li>${esc(n)}</li>`).join('');
	window.pgfReport = { data: D, charts: charts, show: show, bytes: bytes };
	overview();
	frameTables();
	window.addEventListener('hashchange', () => show(location.hash.slice(1)));
	window.addEventListener('resize', () =>
		Object.values(charts).forEach((c) => c.resize()));
	show(location.hash.slice(1));
	window.pgfReport.ready = performance.now();
}());
