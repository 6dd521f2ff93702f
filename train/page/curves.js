/* train_compare's page: every checked metric's curves drawn as inline SVG
 * from the data embedded in the page (#data): the golden curve with its
 * tolerance band (the approximate test's, or the golden runs' spread), the
 * actual curve, the steps out of tolerance marked; a log scale toggle. No
 * network, no library. window.trainPage exposes the state for tests. */
(function () {
  'use strict';
  var NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('data').textContent);
  var W = 760, H = 250, L = 64, R = 14, T = 10, B = 28;
  var state = { log: false, drawn: 0, ready: false, data: data };

  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function html(tag, cls, text, parent) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(x) {
    if (x === null || x === undefined) return 'nan';
    var a = Math.abs(x);
    if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(3);
    return String(Math.round(x * 1e6) / 1e6);
  }
  /* nice ticks over [lo, hi] */
  function ticks(lo, hi, n) {
    if (!(hi > lo)) return [lo];
    var step = Math.pow(10, Math.floor(Math.log10((hi - lo) / n)));
    var err = (hi - lo) / n / step;
    step *= err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1;
    var out = [];
    for (var v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(v);
    return out;
  }

  function draw(m, holder) {
    holder.textContent = '';
    var log = state.log;
    var tr = function (y) { return log ? (y > 0 ? Math.log10(y) : null) : y; };
    var pts = [];
    var xs = [], ys = [];
    m.golden.forEach(function (p) {
      xs.push(p[0]);
      [p[1], p[2], p[3]].forEach(function (v) { var t = v === null ? null : tr(v); if (t !== null && isFinite(t)) ys.push(t); });
    });
    m.actual.forEach(function (p) { xs.push(p[0]); var t = p[1] === null ? null : tr(p[1]); if (t !== null && isFinite(t)) ys.push(t); });
    (m.runs || []).forEach(function (run) { run.forEach(function (p) { var t = p[1] === null ? null : tr(p[1]); if (t !== null && isFinite(t)) ys.push(t); }); });
    var svg = el('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' }, holder);
    if (!xs.length || !ys.length) {
      el('text', { x: L, y: H / 2, class: 'tick' }, svg).textContent = 'nothing to draw';
      return svg;
    }
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    var y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (y1 === y0) { var d = Math.abs(y0) * 0.05 || 1; y0 -= d; y1 += d; }
    var pad = (y1 - y0) * 0.05; y0 -= pad; y1 += pad;
    var X = function (x) { return L + (x - x0) / (x1 - x0) * (W - L - R); };
    var Y = function (y) { return T + (1 - (y - y0) / (y1 - y0)) * (H - T - B); };
    ticks(y0, y1, 5).forEach(function (v) {
      el('line', { x1: L, x2: W - R, y1: Y(v), y2: Y(v), class: 'grid' }, svg);
      el('text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end', class: 'tick' }, svg).textContent = log ? fmt(Math.pow(10, v)) : fmt(v);
    });
    ticks(x0, x1, 8).forEach(function (v) {
      if (v !== Math.round(v)) return;
      el('text', { x: X(v), y: H - 8, 'text-anchor': 'middle', class: 'tick' }, svg).textContent = String(v);
    });
    el('line', { x1: L, x2: L, y1: T, y2: H - B, class: 'axis' }, svg);
    el('line', { x1: L, x2: W - R, y1: H - B, y2: H - B, class: 'axis' }, svg);
    /* the band: a polygon over the steps where both edges are drawable */
    var up = [], down = [];
    m.golden.forEach(function (p) {
      var lo = p[2] === null ? null : tr(p[2]), hi = p[3] === null ? null : tr(p[3]);
      if (lo === null || hi === null || !isFinite(lo) || !isFinite(hi)) return;
      up.push(X(p[0]) + ',' + Y(hi)); down.unshift(X(p[0]) + ',' + Y(lo));
    });
    if (up.length) el('polygon', { points: up.concat(down).join(' '), class: 'band' }, svg);
    function line(points, cls) {
      var segs = [], cur = [];
      points.forEach(function (p) {
        var t = p[1] === null ? null : tr(p[1]);
        if (t === null || !isFinite(t)) { if (cur.length) segs.push(cur); cur = []; return; }
        cur.push(X(p[0]).toFixed(1) + ',' + Y(t).toFixed(1));
      });
      if (cur.length) segs.push(cur);
      segs.forEach(function (s) {
        if (s.length === 1) el('circle', { cx: s[0].split(',')[0], cy: s[0].split(',')[1], r: 1.8, class: cls }, svg);
        else el('polyline', { points: s.join(' '), class: cls }, svg);
      });
    }
    (m.runs || []).forEach(function (run) { line(run, 'run'); });
    line(m.golden, 'golden');
    line(m.actual, 'actual');
    var byStep = {};
    m.actual.forEach(function (p) { byStep[p[0]] = p[1]; });
    var gStep = {};
    m.golden.forEach(function (p) { gStep[p[0]] = p; });
    m.failing.forEach(function (s) {
      var v = byStep[s];
      var t = v === null || v === undefined ? null : tr(v);
      var y = t === null || !isFinite(t) ? T + 4 : Y(t);
      el('circle', { cx: X(s), cy: y, r: 3.2, class: 'fail' }, svg).appendChild(document.createElementNS(NS, 'title')).textContent =
        'step ' + s + ': actual ' + fmt(v === undefined ? null : v) + ', golden ' + fmt(gStep[s] ? gStep[s][1] : null);
    });
    /* the values at the step under the pointer */
    var hover = el('text', { x: W - R, y: T + 12, 'text-anchor': 'end', class: 'hover' }, svg);
    var steps = m.golden.map(function (p) { return p[0]; });
    svg.addEventListener('mousemove', function (ev) {
      var box = svg.getBoundingClientRect();
      var x = x0 + (ev.clientX - box.left - L) / (W - L - R) * (x1 - x0);
      var best = null;
      steps.forEach(function (s) { if (best === null || Math.abs(s - x) < Math.abs(best - x)) best = s; });
      if (best === null) return;
      hover.textContent = 'step ' + best + ': golden ' + fmt(gStep[best][1]) + ', actual ' +
        fmt(byStep[best] === undefined ? null : byStep[best]);
    });
    state.drawn++;
    return svg;
  }

  function build() {
    var root = document.getElementById('cards');
    var cards = [];
    data.metrics.forEach(function (m) {
      var card = html('div', 'card', undefined, root);
      card.dataset.metric = m.name;
      var h = html('h2', '', undefined, card);
      html('span', '', m.name, h);
      m.tests.forEach(function (t) {
        html('span', 'verdict ' + t.verdict, t.test + ' ' + t.verdict, h);
      });
      var notes = m.tests.filter(function (t) { return t.note; }).map(function (t) { return t.test + ': ' + t.note; });
      if (notes.length) html('div', 'note', notes.join('; '), card);
      var holder = html('div', '', undefined, card);
      cards.push({ m: m, holder: holder });
    });
    state.cards = cards;
    state.redraw = function () {
      state.drawn = 0;
      cards.forEach(function (c) { draw(c.m, c.holder); });
    };
    document.getElementById('log').addEventListener('change', function (e) {
      state.log = e.target.checked;
      state.redraw();
    });
    state.redraw();
    state.ready = true;
  }
  window.trainPage = state;
  build();
})();
