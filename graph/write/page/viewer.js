/* msprobe graph page: shows a .vis (msprobe 8.1.0's layout, spec
 * visualization.md §13) embedded in the same file. The tree is drawn lazily:
 * only the rows in view exist in the DOM, so a model of 100,000 nodes
 * opens as fast as one of a hundred. */
'use strict';
(function () {
  const $ = (sel, el) => (el || document).querySelector(sel);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const meta = JSON.parse($('#msprobe-meta').textContent);
  const vis = JSON.parse($('#msprobe-vis').textContent);
  const compare = Object.prototype.hasOwnProperty.call(vis, 'NPU');
  const ROW = 26;
  const OVF = { medium: '#B6C7FC', high: '#7E96F0', critical: '#4668B8' };
  const strip = (id) => (typeof id === 'string' && /^[NB]___/.test(id) ? id.slice(4) : id);

  /* ---- the model ---------------------------------------------------------- */

  /* nodes msprobe never attached (upnode "None": backward modules of
   * torch 1.x dumps, for one) hang under a group of their own at the end */
  const ORPHANS = '\u0000orphans';
  function makeGraph(name, obj) {
    const nodes = obj.node || {};
    const ids = Object.keys(nodes);
    const root = obj.root || 'DefaultModel';
    const orphans = ids.filter((id) => id !== root && (!nodes[id].upnode || nodes[id].upnode === 'None' || !nodes[nodes[id].upnode]));
    return { name: name, nodes: nodes, root: root, ids: ids, size: ids.length, orphans: orphans };
  }
  const graphs = compare ? [makeGraph('NPU', vis.NPU), makeGraph('Bench', vis.Bench)] : [makeGraph('Model', vis)];
  let tips = {};
  if (typeof vis.ToolTip === 'string') {
    try { tips = JSON.parse(vis.ToolTip); } catch (e) { tips = {}; }
  }
  const colors = Object.keys(vis.Colors || {}).map((hex) => ({
    hex: hex, value: vis.Colors[hex].value || [], desc: vis.Colors[hex].description || ''
  }));
  const microSteps = vis.MicroSteps || 1;
  const overflowCheck = !!vis.OverflowCheck;

  function precision(n) {
    const v = n.data ? n.data.precision_index : undefined;
    if (v === undefined || v === null || v === '') return null;
    const x = typeof v === 'number' ? v : parseFloat(v);
    return isNaN(x) ? null : x;
  }
  const matched = (n) => Array.isArray(n.matched_node_link) && n.matched_node_link.length > 0;

  /* the legend entry of an index: low <= v < high, or v == high == 1, or v == low == 0 */
  function colorOf(v) {
    for (const c of colors) {
      if (c.value.length !== 2) continue;
      const lo = c.value[0], hi = c.value[1];
      if ((lo <= v && v < hi) || (hi === 1 && v === 1) || (lo === 0 && v === 0)) return c.hex;
    }
    return null;
  }
  const state = { overflowView: false, unmatchedOnly: false, ranges: new Set(), micro: 'all', query: '' };

  function fill(g, n) {
    if (state.overflowView) return OVF[(n.data || {}).overflow_level] || '#eef0f3';
    if (!compare) return '#eef0f3';
    if (g.name === 'Bench') return 'rgb(236,235,235)';
    if (!matched(n)) return '#C7C7C7';
    const v = precision(n);
    return v === null ? '#ffffff' : colorOf(v) || '#ffffff';
  }

  /* a node's counterpart in the graph `other`, or undefined */
  const twinIn = (n, other) => (matched(n) ? other.nodes[strip(n.matched_node_link[n.matched_node_link.length - 1])] : undefined);

  /* the colour a node is judged by (legend filter, markers): its own on the
   * NPU side, its counterpart's on the Bench side, whose own fill is plain */
  function judged(g, n) {
    if (g.name !== 'Bench') return fill(g, n);
    const twin = twinIn(n, graphs[0]);
    return twin ? fill(graphs[0], twin) : null;
  }

  /* The colours that mean "look here", by severity (1, 2, ...): every range
   * of the legend but its first, the one that passes (the lowest index, or
   * md5's "same"), so the yellows and the red; in the overflow view every
   * overflow level. */
  function alarms() {
    const m = new Map();
    if (state.overflowView) Object.keys(OVF).forEach((k, i) => m.set(OVF[k], i + 1));
    else colors.filter((c) => c.value.length === 2).slice(1).forEach((c, i) => m.set(c.hex, i + 1));
    return m;
  }
  const legendText = (hex) => {
    const c = colors.find((x) => x.hex === hex);
    if (c) return c.value.length ? '[' + c.value[0] + ', ' + c.value[1] + ']' : 'unmatched';
    return Object.keys(OVF).find((k) => OVF[k] === hex) || hex;
  };

  /* the label of §13: the full id at the root, else the last parts */
  function label(g, n) {
    const id = n.id;
    if (n.upnode === g.root || id === g.root) return id;
    const p = id.split('.');
    if (n.node_type === 0) {
      const k = p.length >= 4 && /^\d+$/.test(p[p.length - 4]) ? 5 : 4;
      return p.slice(-k).join('.');
    }
    const k = p.length >= 2 && /^\d+$/.test(p[p.length - 2]) ? 3 : 2;
    return p.slice(-k).join('.');
  }

  /* ---- a pane: one graph as a tree of rows ---------------------------------- */

  function Pane(g, index) {
    this.g = g;
    this.index = index;
    this.expanded = new Set([g.root]);
    this.selected = null;
    this.rows = [];
    this.visible = null;     /* with a filter: the ids shown */
    const box = el('section', 'pane');
    const head = el('div', 'pane-head');
    head.appendChild(el('span', '', g.name));
    head.appendChild(el('span', 'n', g.size + ' nodes'));
    this.crumbs = el('span', 'crumbs');
    head.appendChild(this.crumbs);
    this.tree = el('div', 'tree');
    this.tree.tabIndex = 0;
    this.sizer = el('div', 'sizer');
    this.tree.appendChild(this.sizer);
    box.appendChild(head);
    box.appendChild(this.tree);
    this.box = box;
    this.tree.addEventListener('scroll', () => this.draw());
    this.tree.addEventListener('click', (ev) => this.click(ev));
    this.tree.addEventListener('keydown', (ev) => this.key(ev));
  }

  /* What each module holds below it that is in an alarm colour: id ->
   * {count, hex (the worst), by (colour -> count)}; worked out once per view
   * (precision or overflow), from the leaves up. */
  Pane.prototype.marks = function () {
    if (this.marksFor === state.overflowView) return this.markMap;
    const g = this.g, sev = alarms(), map = new Map();
    if (sev.size)
      for (const id of g.ids) {
        const hex = judged(g, g.nodes[id]), s = sev.get(hex);
        if (!s) continue;
        let up = g.nodes[id].upnode, guard = 0;
        while (up && up !== 'None' && g.nodes[up] && up !== id && guard++ < 100000) {
          let m = map.get(up);
          if (!m) map.set(up, (m = { count: 0, worst: 0, hex: null, by: {} }));
          m.count++;
          m.by[hex] = (m.by[hex] || 0) + 1;
          if (s > m.worst) { m.worst = s; m.hex = hex; }
          up = g.nodes[up].upnode;
        }
      }
    this.marksFor = state.overflowView;
    this.markMap = map;
    return map;
  };

  Pane.prototype.children = function (n, depth) {
    let kids = (n.subnodes || []).filter((id) => this.g.nodes[id]);
    if (depth === 0 && state.micro !== 'all') {
      kids = kids.filter((id) => {
        const m = this.g.nodes[id].micro_step_id;
        return m === undefined || String(m) === state.micro;
      });
    }
    if (this.visible) kids = kids.filter((id) => this.visible.has(id));
    return kids;
  };

  /* the rows: a depth-first walk of the expanded nodes */
  Pane.prototype.flatten = function () {
    const rows = [];
    const g = this.g;
    const walk = (start, depth0) => {
      const stack = [[start, depth0]];
      while (stack.length) {
        const [id, depth] = stack.pop();
        const n = g.nodes[id];
        const kids = this.children(n, depth);
        rows.push({ id: id, depth: depth, kids: kids.length });
        if (kids.length && this.expanded.has(id))
          for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k], depth + 1]);
      }
    };
    if (g.nodes[g.root]) walk(g.root, 0);
    const orphans = this.visible ? g.orphans.filter((id) => this.visible.has(id)) : g.orphans;
    if (orphans.length) {
      rows.push({ id: ORPHANS, depth: 0, kids: orphans.length });
      if (this.expanded.has(ORPHANS))
        for (const id of orphans) walk(id, 1);
    }
    this.rows = rows;
    this.sizer.style.height = rows.length * ROW + 'px';
  };

  Pane.prototype.draw = function () {
    const top = this.tree.scrollTop, h = this.tree.clientHeight || 600;
    const from = Math.max(0, Math.floor(top / ROW) - 10), to = Math.min(this.rows.length, Math.ceil((top + h) / ROW) + 10);
    const frag = document.createDocumentFragment();
    const q = state.query;
    for (let i = from; i < to; i++) {
      const r = this.rows[i], n = this.g.nodes[r.id];
      const row = el('div', 'row');
      row.style.top = i * ROW + 'px';
      row.dataset.id = r.id;
      if (r.id === ORPHANS) {
        row.appendChild(el('span', 'tog', this.expanded.has(ORPHANS) ? '\u25be' : '\u25b8'));
        const box = el('span', 'node collection');
        box.title = 'nodes construct.json never attaches to the model (their parent is none)';
        box.appendChild(el('span', 'label', 'outside the model tree'));
        row.appendChild(box);
        const b = el('span', 'badges');
        b.appendChild(el('span', 'badge', r.kids + ' nodes'));
        row.appendChild(b);
        frag.appendChild(row);
        continue;
      }
      if (r.id === this.selected) row.classList.add('sel');
      if (q && r.id.toLowerCase().indexOf(q) >= 0) row.classList.add('hit');
      for (let d = 0; d < r.depth; d++) {
        const gl = el('span', 'guide');
        gl.style.left = 10 + d * 16 + 'px';
        row.appendChild(gl);
      }
      const pad = el('span');
      pad.style.width = r.depth * 16 + 4 + 'px';
      pad.style.flex = 'none';
      row.appendChild(pad);
      row.appendChild(el('span', 'tog', r.kids ? (this.expanded.has(r.id) ? '\u25be' : '\u25b8') : ''));
      const kind = n.node_type === 9 ? 'collection' : r.kids ? 'module' : 'leaf';
      const box = el('span', 'node ' + kind + (compare && !matched(n) ? ' unmatched' : ''));
      box.style.background = fill(this.g, n);
      box.title = r.id;
      box.appendChild(el('span', 'label', label(this.g, n)));
      row.appendChild(box);
      /* a closed module says what diverges inside it */
      const m = r.kids && !this.expanded.has(r.id) ? this.marks().get(r.id) : null;
      if (m) {
        box.classList.add('flagged');
        box.style.setProperty('--flag', m.hex);
        const mk = el('span', 'marker');
        mk.style.setProperty('--flag', m.hex);
        mk.textContent = String(m.count);
        mk.title = m.count + ' node' + (m.count === 1 ? '' : 's') + ' inside to look at: ' +
          Object.keys(m.by).sort((a, b) => alarms().get(b) - alarms().get(a)).map((h) => m.by[h] + ' at ' + legendText(h)).join(', ');
        row.appendChild(mk);
      }
      row.appendChild(badges(this.g, n));
      frag.appendChild(row);
    }
    this.sizer.textContent = '';
    this.sizer.appendChild(frag);
  };

  function badges(g, n) {
    const b = el('span', 'badges');
    const d = n.data || {};
    const v = precision(n);
    if (compare && g.name !== 'Bench' && v !== null) b.appendChild(el('span', 'badge', v.toFixed(4)));
    if (d.Result) b.appendChild(el('span', 'badge', d.Result));
    if (d.overflow_level) b.appendChild(el('span', 'badge ovf-' + d.overflow_level, d.overflow_level));
    if (n.matched_distributed) {
      const list = Array.isArray(n.matched_distributed) ? n.matched_distributed : [n.matched_distributed];
      for (const m of list)
        for (const r of Object.keys(m.nodes_info || {}))
          b.appendChild(el('span', 'badge dist', (m.communications_type || '') + ' \u2194 rank ' + r));
    }
    if (compare && !matched(n) && n.id !== g.root) b.appendChild(el('span', 'badge nomatch', 'unmatched'));
    return b;
  }

  Pane.prototype.refresh = function () { this.flatten(); this.draw(); };

  /* expand the ancestors of a node so that it has a row */
  Pane.prototype.reveal = function (id) {
    const g = this.g;
    let p = g.nodes[id] ? g.nodes[id].upnode : null, last = id;
    const seen = new Set();
    while (p && p !== 'None' && g.nodes[p] && !seen.has(p)) {
      seen.add(p);
      this.expanded.add(p);
      last = p;
      p = g.nodes[p].upnode;
    }
    if (last !== g.root) this.expanded.add(ORPHANS);
    if (state.micro !== 'all') {
      const top = this.topOf(id);
      if (top && g.nodes[top].micro_step_id !== undefined && String(g.nodes[top].micro_step_id) !== state.micro) {
        state.micro = 'all';
        $('#micro') && ($('#micro').value = 'all');
        panes.forEach((q) => q !== this && q.refresh());
      }
    }
  };

  Pane.prototype.topOf = function (id) {
    const g = this.g;
    let cur = id, guard = 0;
    while (g.nodes[cur] && g.nodes[cur].upnode !== g.root && g.nodes[cur].upnode !== 'None' && guard++ < 100000)
      cur = g.nodes[cur].upnode;
    return g.nodes[cur] && g.nodes[cur].upnode === g.root ? cur : null;
  };

  Pane.prototype.scrollTo = function (id) {
    const i = this.rows.findIndex((r) => r.id === id);
    if (i < 0) return;
    const top = i * ROW, h = this.tree.clientHeight || 600;
    if (top < this.tree.scrollTop || top + ROW > this.tree.scrollTop + h) this.tree.scrollTop = Math.max(0, top - h / 3);
  };

  /* select a node; `sync`: bring its counterpart up in the other pane */
  Pane.prototype.select = function (id, sync) {
    if (!this.g.nodes[id]) return false;
    this.selected = id;
    this.reveal(id);
    this.refresh();
    this.scrollTo(id);
    this.draw();
    this.crumbs.textContent = this.crumbs.title = path(this.g, id).join(' \u203a ');
    if (sync && panes.length === 2) {
      const other = panes[1 - this.index];
      const n = this.g.nodes[id];
      const link = matched(n) ? strip(n.matched_node_link[n.matched_node_link.length - 1]) : null;
      if (link && other.g.nodes[link]) other.select(link, false);
      else { other.selected = null; other.draw(); other.crumbs.textContent = other.crumbs.title = ''; }
    }
    showDetails(this, id);
    return true;
  };

  Pane.prototype.click = function (ev) {
    const row = ev.target.closest('.row');
    if (!row) return;
    const id = row.dataset.id;
    if (ev.target.classList.contains('tog') || id === ORPHANS) {
      if (this.expanded.has(id)) this.expanded.delete(id);
      else this.expanded.add(id);
      this.refresh();
      return;
    }
    this.select(id, true);
  };

  Pane.prototype.key = function (ev) {
    if (!this.selected) return;
    const i = this.rows.findIndex((r) => r.id === this.selected);
    let j = i;
    if (ev.key === 'ArrowDown') j = Math.min(this.rows.length - 1, i + 1);
    else if (ev.key === 'ArrowUp') j = Math.max(0, i - 1);
    else if (ev.key === 'ArrowRight') { this.expanded.add(this.selected); this.refresh(); }
    else if (ev.key === 'ArrowLeft') { this.expanded.delete(this.selected); this.refresh(); }
    else return;
    ev.preventDefault();
    if (j !== i && this.rows[j] && this.rows[j].id !== ORPHANS) this.select(this.rows[j].id, true);
  };

  function path(g, id) {
    const out = [];
    let cur = id, guard = 0;
    while (cur && g.nodes[cur] && guard++ < 100000) {
      out.unshift(cur);
      const up = g.nodes[cur].upnode;
      cur = up && up !== 'None' ? up : null;
    }
    return out;
  }

  /* ---- the details of a node ---------------------------------------------------- */

  function fact(dl, name, value) {
    dl.appendChild(el('dt', '', name));
    const dd = el('dd');
    if (value instanceof Node) dd.appendChild(value);
    else dd.textContent = value;
    dl.appendChild(dd);
  }

  function jump(pane, id, text) {
    const a = el('a', '', text || id);
    a.addEventListener('click', () => pane.select(id, true));
    return a;
  }

  /* the page of another rank of this step: this page's name with its rank */
  function rankPage(rank) {
    const m = /^(.*_rank)(\d*)(_\d{14}\.html)$/.exec(meta.page || '');
    return m ? m[1] + rank + m[3] : null;
  }

  function itemTable(pane, items, twinItems, twin) {
    const keys = [];
    const add = (it) => Object.keys(it).forEach((k) => { if (keys.indexOf(k) < 0) keys.push(k); });
    items.forEach((e) => add(e[1]));
    twinItems.forEach((e) => add(e[1]));
    const t = el('table', 'items');
    const hr = el('tr');
    const cols = (compare ? ['', 'name'] : ['name']).concat(keys);
    for (const k of cols) {
      const th = el('th', '', k);
      if (tips[k]) th.title = tips[k];
      hr.appendChild(th);
    }
    t.appendChild(hr);
    const rows = Math.max(items.length, twinItems.length);
    const prefixN = pane.selected + '.';
    for (let i = 0; i < rows; i++) {
      let sides = compare ? [[items[i], 'npu', panes[0].g.name], [twinItems[i], 'bench', panes[1].g.name]] : [[items[i], 'npu', '']];
      if (pane.index === 1 && compare) sides.reverse();
      if (compare && !twin) sides = sides.slice(0, 1);
      sides.forEach((s, k) => {
        const tr = el('tr', s[1] + (k === 0 ? ' pair-start' : ''));
        if (compare) tr.appendChild(el('td', '', s[2]));
        const e = s[0];
        let name = e ? e[0] : '';
        if (name.indexOf(prefixN) === 0) name = name.slice(prefixN.length);
        else if (e && name.lastIndexOf('.') > 0) name = name.replace(/^.*?\.(input|output|parameters|kwargs|parameters_grad)\b/, '$1');
        tr.appendChild(el('td', '', name));
        for (const key of keys) tr.appendChild(el('td', '', e && e[1][key] !== undefined ? String(e[1][key]) : ''));
        t.appendChild(tr);
      });
    }
    return t;
  }

  const entries = (obj) => Object.keys(obj || {}).map((k) => [k, obj[k]]);

  function showDetails(pane, id) {
    const body = $('#details .body');
    body.textContent = '';
    const g = pane.g, n = g.nodes[id];
    body.appendChild(el('h2', '', id));
    const dl = el('dl', 'facts');
    fact(dl, 'type', n.node_type === 9 ? 'APIs between modules' : n.node_type === 1 ? 'API' : 'module');
    if (n.upnode && n.upnode !== 'None') fact(dl, 'parent', jump(pane, n.upnode));
    if (n.micro_step_id !== undefined) fact(dl, 'micro step', String(n.micro_step_id));
    const d = n.data || {};
    if (d.precision_index !== undefined) {
      const v = precision(n), sw = el('span');
      const c = v !== null ? colorOf(v) : null;
      if (c) { const s = el('span', 'swatch-inline'); s.style.background = c; sw.appendChild(s); }
      sw.appendChild(document.createTextNode(String(d.precision_index)));
      fact(dl, 'precision index', sw);
    }
    if (d.Result) fact(dl, 'md5', d.Result);
    if (d.overflow_level) fact(dl, 'overflow level', d.overflow_level);
    const other = panes.length === 2 ? panes[1 - pane.index] : null;
    if (compare) {
      if (matched(n)) {
        const span = el('span');
        n.matched_node_link.map(strip).forEach((p, i) => {
          if (i) span.appendChild(document.createTextNode(' \u203a '));
          span.appendChild(other && other.g.nodes[p] ? jump(other, p) : document.createTextNode(p));
        });
        fact(dl, 'matched ' + (other ? other.g.name : ''), span);
      } else {
        fact(dl, 'matched', 'not matched');
      }
    }
    if (n.matched_distributed) {
      const list = Array.isArray(n.matched_distributed) ? n.matched_distributed : [n.matched_distributed];
      const span = el('span');
      for (const m of list)
        for (const r of Object.keys(m.nodes_info || {})) {
          const info = m.nodes_info[r], page = rankPage(r);
          const a = el('a', '', (m.communications_type || '') + ' \u2194 rank ' + r + ': ' + info[1] + ' [' + info[0] + ']');
          if (page) a.href = page + '#node=' + encodeURIComponent(info[1]);
          span.appendChild(a);
          span.appendChild(el('br'));
        }
      fact(dl, 'distributed', span);
    }
    body.appendChild(dl);
    /* the twin's items, paired by position */
    let twin = null;
    if (compare && matched(n) && other) twin = other.g.nodes[strip(n.matched_node_link[n.matched_node_link.length - 1])];
    const sections = [['Inputs', 'input_data'], ['Outputs', 'output_data']];
    for (const [title, key] of sections) {
      const items = entries(n[key]), twinItems = twin ? entries(twin[key]) : [];
      if (!items.length && !twinItems.length) continue;
      body.appendChild(el('h3', '', title));
      body.appendChild(itemTable(pane, items, twinItems, twin));
    }
    const stack = Array.isArray(n.stack_info) ? n.stack_info : n.stack_info ? [String(n.stack_info)] : [];
    if (stack.length) {
      body.appendChild(el('h3', '', 'Stack'));
      body.appendChild(el('pre', 'stack', stack.join('\n')));
    }
  }

  /* ---- search and filters --------------------------------------------------------- */

  let hits = [], hitAt = -1;
  function search(q) {
    state.query = q.trim().toLowerCase();
    hits = [];
    hitAt = -1;
    if (state.query) {
      const g = panes[0].g;
      for (const id of g.ids) if (id.toLowerCase().indexOf(state.query) >= 0) hits.push(id);
    }
    $('#count').textContent = state.query ? hits.length + ' found' : '';
    panes.forEach((p) => p.draw());
  }
  function nextHit(step) {
    if (!hits.length) return;
    hitAt = (hitAt + step + hits.length) % hits.length;
    $('#count').textContent = hitAt + 1 + ' / ' + hits.length;
    panes[0].select(hits[hitAt], true);
  }

  /* a filter shows the nodes that pass and their ancestors */
  function applyFilters() {
    const active = state.unmatchedOnly || state.ranges.size > 0;
    panes.forEach((p) => {
      if (!active) { p.visible = null; p.refresh(); return; }
      const g = p.g, keep = new Set();
      for (const id of g.ids) {
        const n = g.nodes[id];
        let pass = true;
        if (state.unmatchedOnly) pass = compare && !matched(n) && id !== g.root;
        if (pass && state.ranges.size && id === g.root) pass = false;
        if (pass && state.ranges.size) pass = state.ranges.has(judged(g, n));
        if (!pass) continue;
        let cur = id, guard = 0;
        while (cur && g.nodes[cur] && !keep.has(cur) && guard++ < 100000) {
          keep.add(cur);
          if (cur !== id) p.expanded.add(cur);
          const up = g.nodes[cur].upnode;
          cur = up && up !== 'None' ? up : null;
        }
      }
      keep.add(g.root);
      p.visible = keep;
      p.refresh();
    });
  }

  /* ---- the page ------------------------------------------------------------------------ */

  function build() {
    const head = $('header');
    head.appendChild(Object.assign(el('div', 'brand'), { innerHTML: 'msprobe <span>graph</span>' }));
    head.appendChild(Object.assign(el('div', 'file', meta.file || ''), { title: meta.file || '' }));
    const chips = el('div', 'chips');
    chips.appendChild(el('span', 'chip', compare ? 'compare \u00b7 ' + (vis.task || '') : 'build'));
    if (microSteps > 1) chips.appendChild(el('span', 'chip', microSteps + ' micro steps'));
    if (overflowCheck) chips.appendChild(el('span', 'chip warn', 'overflow check'));
    head.appendChild(chips);

    const tb = $('#toolbar');
    const input = el('input');
    input.type = 'search';
    input.id = 'search';
    input.placeholder = 'Search nodes by name\u2026  (Enter: next)';
    input.addEventListener('input', () => search(input.value));
    input.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') nextHit(ev.shiftKey ? -1 : 1); });
    tb.appendChild(input);
    const prev = el('button', '', '\u2191'), next = el('button', '', '\u2193');
    prev.title = 'previous match';
    next.title = 'next match';
    prev.addEventListener('click', () => nextHit(-1));
    next.addEventListener('click', () => nextHit(1));
    tb.appendChild(prev);
    tb.appendChild(next);
    tb.appendChild(Object.assign(el('span', 'count'), { id: 'count' }));
    tb.appendChild(el('span', 'sep'));
    if (compare) {
      const lab = el('label'), cb = el('input');
      cb.type = 'checkbox';
      cb.id = 'unmatched';
      cb.addEventListener('change', () => { state.unmatchedOnly = cb.checked; applyFilters(); });
      lab.appendChild(cb);
      lab.appendChild(document.createTextNode('unmatched only'));
      tb.appendChild(lab);
    }
    if (overflowCheck) {
      const lab = el('label'), cb = el('input');
      cb.type = 'checkbox';
      cb.id = 'overflow';
      cb.addEventListener('change', () => {
        state.overflowView = cb.checked;
        /* the colours of one view mean nothing in the other */
        state.ranges.clear();
        legend();
        applyFilters();
      });
      lab.appendChild(cb);
      lab.appendChild(document.createTextNode('overflow view'));
      tb.appendChild(lab);
    }
    if (microSteps > 1) {
      const sel = el('select');
      sel.id = 'micro';
      sel.appendChild(Object.assign(el('option', '', 'all micro steps'), { value: 'all' }));
      for (let i = 0; i < microSteps; i++) sel.appendChild(Object.assign(el('option', '', 'micro step ' + i), { value: String(i) }));
      sel.addEventListener('change', () => { state.micro = sel.value; panes.forEach((p) => p.refresh()); });
      tb.appendChild(sel);
    }
    const expand = el('button', '', 'Expand level'), collapse = el('button', '', 'Collapse all');
    expand.addEventListener('click', () => panes.forEach((p) => {
      p.rows.forEach((r) => { if (r.kids) p.expanded.add(r.id); });
      p.refresh();
    }));
    collapse.addEventListener('click', () => panes.forEach((p) => { p.expanded = new Set([p.g.root]); p.refresh(); }));
    tb.appendChild(expand);
    tb.appendChild(collapse);
    legend();
  }

  function legend() {
    const lg = $('#legend');
    lg.textContent = '';
    const entriesShown = state.overflowView
      ? Object.keys(OVF).map((k) => ({ hex: OVF[k], text: k, desc: 'overflow level ' + k }))
      : colors.map((c) => ({ hex: c.hex, text: c.value.length ? '[' + c.value[0] + ', ' + c.value[1] + ']' : 'unmatched', desc: c.desc }));
    if (!entriesShown.length) { lg.style.display = 'none'; return; }
    lg.style.display = '';
    lg.appendChild(el('span', 'title', (state.overflowView ? 'Overflow' : 'Precision index') + ' \u00b7 show only:'));
    /* how many nodes of the first run each entry holds */
    const counts = {};
    const g0 = graphs[0];
    for (const id of g0.ids) {
      const f = fill(g0, g0.nodes[id]);
      counts[f] = (counts[f] || 0) + 1;
    }
    /* each entry is a toggle: pressed, the nodes of its colour are shown
     * (with the others pressed); none pressed, every node is */
    const any = entriesShown.some((c) => state.ranges.has(c.hex));
    const toggle = (hex) => {
      if (state.ranges.has(hex)) state.ranges.delete(hex);
      else state.ranges.add(hex);
      legend();
      applyFilters();
    };
    for (const c of entriesShown) {
      const on = state.ranges.has(c.hex);
      const it = el('button', 'item' + (on ? ' on' : any ? ' off' : ''));
      it.type = 'button';
      it.setAttribute('aria-pressed', on ? 'true' : 'false');
      it.dataset.hex = c.hex;
      it.appendChild(el('span', 'check', on ? '\u2713' : ''));
      const sw = el('span', 'swatch');
      sw.style.background = c.hex;
      it.appendChild(sw);
      it.appendChild(document.createTextNode(c.text + ' '));
      it.appendChild(el('span', 'num', String(counts[c.hex] || 0)));
      it.title = c.desc + '\n' + (on ? 'shown: click to stop showing only these' : 'click to show only these (with any other pressed)');
      it.addEventListener('click', () => toggle(c.hex));
      lg.appendChild(it);
    }
    if (any) {
      const all = el('button', 'clear', 'show all');
      all.type = 'button';
      all.addEventListener('click', () => {
        state.ranges.clear();
        legend();
        applyFilters();
      });
      lg.appendChild(all);
    }
  }

  const panesBox = $('#panes');
  const panes = graphs.map((g, i) => new Pane(g, i));
  if (panes.length === 2) panesBox.classList.add('two');
  panes.forEach((p) => panesBox.appendChild(p.box));
  build();
  panes.forEach((p) => p.refresh());
  const body = $('#details .body');
  body.appendChild(el('div', 'empty', 'Click a node to see its inputs, outputs and stack. Click \u25b8 to open a module.'));
  const want = /#node=(.*)$/.exec(location.hash);
  if (want) panes[0].select(decodeURIComponent(want[1]), true);
  window.addEventListener('resize', () => panes.forEach((p) => p.draw()));
  /* for scripts and tests: the panes and a way to wait for a drawn page */
  window.msprobeGraph = { panes: panes, search: search, nextHit: nextHit, ready: true };
})();
