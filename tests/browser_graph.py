#!/usr/bin/env python3
"""Opens graph pages in headless Chromium, driven over the DevTools protocol
(--remote-debugging-pipe: JSON messages on file descriptors 3 and 4, no
websocket, nothing but the standard library), and uses them as a person
would: expands a module by its triangle, searches a name, clicks a matched
node and checks that the other run's tree follows to its counterpart and the
details show its inputs. With --layout (a compare page), the page's layout
and colour cues: the two panes keep half the window each whatever is
selected, the legend entries are toggle buttons, a closed module holding
nodes in the legend's yellow or red is ringed and carries their count, a
collection is filled by its index like any node. Any console error or
uncaught exception fails the test. Prints how long the page took to open
(on the clock, and in CPU time of Chromium's processes, which
--expect-open-s bounds); can save a screenshot.

usage: browser_graph.py CHROMIUM PAGE [--expect-open-s S] [--screenshot PNG]
                        [--search NAME] [--window WxH] [--layout] [--only-open]
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix='msprobe-chromium-')
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            # copies first: a pipe end may itself be descriptor 3 or 4, and
            # dup2 onto itself would leave it closed on exec
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [chromium, '--headless=new', '--remote-debugging-pipe', '--no-sandbox', '--disable-gpu',
             '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--hide-scrollbars',
             '--user-data-dir=' + self.profile, 'about:blank'],
            preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b'\0')
        want = self.next_id
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.read(deadline)
            if m is None:
                break
            if m.get('id') == want:
                if 'error' in m:
                    raise RuntimeError(f'{method}: {m["error"]}')
                return m.get('result', {})
            self.events.append(m)
        raise RuntimeError(f'{method}: no answer in {timeout} s')

    def read(self, deadline):
        while b'\0' not in self.buf:
            import select
            r, _, _ = select.select([self.from_chrome], [], [], max(0.0, deadline - time.time()))
            if not r:
                return None
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def wait_event(self, method, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get('method') == method:
                    return self.events.pop(i)
            m = self.read(deadline)
            if m is None:
                raise RuntimeError(f'no {method} in {timeout} s')
            self.events.append(m)

    def errors(self):
        out = []
        for e in self.events:
            m, p = e.get('method'), e.get('params', {})
            if m == 'Runtime.exceptionThrown':
                d = p.get('exceptionDetails', {})
                out.append('exception: ' + (d.get('exception', {}).get('description') or d.get('text', '?')))
            elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
                out.append('console.' + p['type'] + ': ' + ' '.join(str(a.get('value', a.get('description')))
                                                                  for a in p.get('args', [])))
            elif m == 'Log.entryAdded' and p.get('entry', {}).get('level') == 'error':
                out.append('log: ' + p['entry'].get('text', ''))
        return out

    def cpu_seconds(self):
        """CPU time (user + system) of Chromium's processes so far: the
        browser and every process under it. What opening a page costs in
        this, unlike the time on the clock, does not grow when other work
        shares the machine."""
        parent, ticks = {}, {}
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                with open(f'/proc/{pid}/stat') as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            parent[int(pid)] = int(fields[1])
            ticks[int(pid)] = int(fields[11]) + int(fields[12])
        total = 0
        for pid, t in ticks.items():
            p = pid
            while p > 1 and p != self.proc.pid:
                p = parent.get(p, 0)
            if p == self.proc.pid:
                total += t
        return total / os.sysconf('SC_CLK_TCK')

    def open(self, url, width, height):
        target = self.send('Target.createTarget', {'url': 'about:blank'}, session=False)
        attached = self.send('Target.attachToTarget', {'targetId': target['targetId'], 'flatten': True},
                             session=False)
        self.session = attached['sessionId']
        for m in ('Runtime.enable', 'Log.enable', 'Page.enable'):
            self.send(m)
        self.send('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': False})
        t0, cpu0 = time.time(), self.cpu_seconds()
        self.send('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired', timeout=120)
        return time.time() - t0, self.cpu_seconds() - cpu0

    def eval(self, expr):
        r = self.send('Runtime.evaluate', {'expression': expr, 'awaitPromise': True, 'returnByValue': True},
                      timeout=120)
        if 'exceptionDetails' in r:
            raise RuntimeError('script: ' + r['exceptionDetails'].get('exception', {}).get('description', '?'))
        return r.get('result', {}).get('value')

    def finish(self, screenshot):
        """The page's end of a check: its screenshot when asked for, then
        its console errors (1 when there are any)."""
        if screenshot:
            shot = self.send('Page.captureScreenshot', {'format': 'png'})
            with open(screenshot, 'wb') as f:
                f.write(base64.b64decode(shot['data']))
            print(f'  screenshot: {screenshot}')
        errors = self.errors()
        if errors:
            print('FAIL: console errors:\n  ' + '\n  '.join(errors))
            return 1
        return 0

    def failed(self, e):
        """A check that raised: its exception and what the page logged."""
        print(f'FAIL: {e}')
        for err in self.errors():
            print('  ' + err)
        return 1

    def close(self):
        try:
            self.send('Browser.close', session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


# What a person does on the page, in the page: real clicks on the elements
# drawn, real key strokes in the search box; each step checks what changed.
STEPS = r'''
(async () => {
  const G = window.msprobeGraph, out = [];
  const tick = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const fail = (m) => { throw new Error(m); };
  if (!G || !G.ready) fail('the page did not start');
  const npu = G.panes[0], two = G.panes.length === 2;
  const rowOf = (pane, id) => [...pane.sizer.querySelectorAll('.row')].find((r) => r.dataset.id === id);
  const click = (e) => e.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  /* 1. open the first module of the root by its triangle */
  const before = npu.rows.length;
  const mod = npu.rows.find((r) => r.depth === 1 && r.kids > 0 && !npu.expanded.has(r.id));
  if (!mod) fail('no closed module at the top');
  click(rowOf(npu, mod.id).querySelector('.tog'));
  await tick();
  if (npu.rows.length <= before) fail('expanding ' + mod.id + ' showed no children');
  const child = npu.g.nodes[mod.id].subnodes[0];
  if (!rowOf(npu, child)) fail('the child ' + child + ' has no row');
  out.push('expanded ' + mod.id + ': ' + before + ' -> ' + npu.rows.length + ' rows');
  /* 2. search: type a name, Enter goes to the first match */
  const q = SEARCH;
  const box = document.getElementById('search');
  box.value = q;
  box.dispatchEvent(new Event('input', { bubbles: true }));
  box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
  await tick();
  const count = document.getElementById('count').textContent;
  if (!/^1 \/ \d+$/.test(count)) fail('search "' + q + '": count ' + JSON.stringify(count));
  if (!npu.selected || npu.selected.toLowerCase().indexOf(q.toLowerCase()) < 0) fail('search selected ' + npu.selected);
  out.push('search ' + q + ': ' + count + ', selected ' + npu.selected);
  if (two) {
    /* 3. click a matched node: the Bench tree follows to its counterpart */
    const id = Object.keys(npu.g.nodes).find((k) => {
      const n = npu.g.nodes[k];
      return n.node_type === 1 && n.matched_node_link.length > 1 && n.upnode !== npu.g.root;
    });
    if (!id) fail('no matched API below a module');
    npu.reveal(id);
    npu.refresh();
    npu.scrollTo(id);
    npu.draw();
    await tick();
    const row = rowOf(npu, id);
    if (!row) fail('no row for ' + id);
    click(row.querySelector('.node'));
    await tick();
    const n = npu.g.nodes[id], twin = n.matched_node_link[n.matched_node_link.length - 1];
    const bench = G.panes[1];
    if (bench.selected !== twin) fail('Bench selected ' + bench.selected + ', not ' + twin);
    const brow = rowOf(bench, twin);
    if (!brow || !brow.classList.contains('sel')) fail('the Bench row of ' + twin + ' is not drawn selected');
    const details = document.querySelector('#details .body').textContent;
    if (details.indexOf('Inputs') < 0 && details.indexOf('Outputs') < 0) fail('no inputs in the details');
    out.push('selected ' + id + ' -> Bench ' + twin);
    /* 4. the legend filters by precision range, and back */
    const item = document.querySelector('#legend .item');
    click(item);
    await tick();
    const filtered = npu.rows.length;
    click(item);
    await tick();
    out.push('legend filter: ' + filtered + ' rows, then ' + npu.rows.length);
    /* and the node again, for the picture */
    click(rowOf(npu, id).querySelector('.node'));
    await tick();
  }
  /* 5. a communication node links to the page of the rank it talks to */
  const comm = Object.keys(npu.g.nodes).find((k) => npu.g.nodes[k].matched_distributed);
  if (comm) {
    npu.select(comm, true);
    await tick();
    const a = document.querySelector('#details a[href*="#node="]');
    if (!a) fail('no link to another rank for ' + comm);
    out.push('rank link of ' + comm + ': ' + a.getAttribute('href'));
  }
  return out;
})()
'''


# The layout and colour cues of a compare page, each check on its own (one
# failing does not hide the others), against the rule read from the .vis
# itself: the legend's first range passes, the others (yellows, red) are
# the ones to look at; a node's colour is the first range holding its index.
LAYOUT = r"""
(async () => {
  const G = window.msprobeGraph, out = [];
  const tick = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const click = (e) => e.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  const npu = G.panes[0], bench = G.panes[1];
  if (!bench) return ['FAIL layout: not a compare page'];
  const vis = JSON.parse(document.getElementById('msprobe-vis').textContent);
  const ranges = Object.keys(vis.Colors).filter((h) => vis.Colors[h].value.length === 2);
  const colourOf = (n) => {
    const v = parseFloat((n.data || {}).precision_index);
    if (!(n.matched_node_link || []).length || isNaN(v)) return null;
    return ranges.find((h) => {
      const [lo, hi] = vis.Colors[h].value;
      return (lo <= v && v < hi) || (hi === 1 && v === 1) || (lo === 0 && v === 0);
    }) || null;
  };
  const alarm = ranges.slice(1), red = ranges[ranges.length - 1];
  const rgb = (hex) => {
    const d = document.createElement('div');
    d.style.color = hex;
    document.body.appendChild(d);
    const c = getComputedStyle(d).color;
    d.remove();
    return c;
  };
  const rowOf = (pane, id) => [...pane.sizer.querySelectorAll('.row')].find((r) => r.dataset.id === id);
  const show = async (pane, id) => { pane.reveal(id); pane.refresh(); pane.scrollTo(id); pane.draw(); await tick(); return rowOf(pane, id); };
  const depth = (g, id) => { let d = 0; for (let c = id; c && g.nodes[c] && d < 1e5; c = g.nodes[c].upnode) d++; return d; };
  const legendItem = (hex) => [...document.querySelectorAll('#legend .item')].find((e) =>
    e.dataset.hex === hex || (e.querySelector('.swatch') && getComputedStyle(e.querySelector('.swatch')).backgroundColor === rgb(hex)));
  const check = async (name, fn) => {
    try { out.push('ok   ' + name + ': ' + (await fn())); } catch (e) { out.push('FAIL ' + name + ': ' + e.message); }
  };
  const fail = (m) => { throw new Error(m); };
  /* the panes keep their half: after the deepest node is selected, with the red filter on and off */
  const halves = async (what) => {
    const W = document.documentElement.clientWidth, widths = G.panes.map((p) => Math.round(p.box.getBoundingClientRect().width));
    const right = Math.round(bench.box.getBoundingClientRect().right);
    const page = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
    if (widths.some((w) => Math.abs(w - W / 2) > 2)) fail(what + ': pane widths ' + widths.join(', ') + ' px in a ' + W + ' px window');
    if (right > W || page > W) fail(what + ': the Bench pane ends at ' + right + ' px, the page is ' + page + ' px wide, the window ' + W);
    const full = [];
    for (let c = npu.selected; c && npu.g.nodes[c]; c = npu.g.nodes[c].upnode) full.unshift(c);
    if (npu.crumbs.title !== full.join(' \u203a ')) fail(what + ': the breadcrumb has no title with the full path');
    return what + ' -> panes ' + widths.join(' + ') + ' px of ' + W;
  };
  const deepest = (ids) => ids.reduce((a, b) => (depth(npu.g, b) > depth(npu.g, a) ? b : a));
  const reds = npu.g.ids.filter((id) => colourOf(npu.g.nodes[id]) === red);
  await check('panes keep their half (red filter)', async () => {
    if (!reds.length) fail('no node in the red range ' + red);
    const item = legendItem(red);
    if (!item) fail('no legend entry for ' + red);
    click(item);
    await tick();
    try {
      const id = deepest(reds), row = await show(npu, id);
      if (!row) fail('no row for ' + id);
      click(row.querySelector('.node'));
      await tick();
      return await halves('selected ' + id + ' (depth ' + depth(npu.g, id) + ')');
    } finally {
      click(legendItem(red));
      await tick();
    }
  });
  await check('panes keep their half (deepest node)', async () => {
    const id = deepest(npu.g.ids.filter((k) => (npu.g.nodes[k].matched_node_link || []).length)), row = await show(npu, id);
    click(row.querySelector('.node'));
    await tick();
    return halves('selected ' + id + ' (depth ' + depth(npu.g, id) + ')');
  });
  /* the legend entries are toggles: pressed state in aria and in sight, filter on, then off */
  await check('legend entries toggle', async () => {
    const items = [...document.querySelectorAll('#legend .item')];
    if (!items.length) fail('no legend entries');
    const bad = items.filter((e) => e.tagName !== 'BUTTON' || e.getAttribute('aria-pressed') !== 'false');
    if (bad.length) fail(bad.length + ' of ' + items.length + ' entries are not toggle buttons (aria-pressed="false")');
    npu.expanded = new Set([npu.g.root]);
    npu.refresh();
    const rowsBefore = npu.rows.length, look = (e) => { const s = getComputedStyle(e); return s.backgroundColor + s.borderColor + s.boxShadow; };
    const offLook = look(legendItem(red));
    click(legendItem(red));
    await tick();
    const on = legendItem(red);
    if (on.getAttribute('aria-pressed') !== 'true') fail('pressed, the red entry has aria-pressed ' + on.getAttribute('aria-pressed'));
    if (look(on) === offLook) fail('pressed and released look the same');
    const shown = npu.rows.filter((r) => !r.kids && npu.g.nodes[r.id]).map((r) => r.id);
    const wrong = shown.filter((id) => colourOf(npu.g.nodes[id]) !== red);
    if (!shown.length || wrong.length) fail('filtered: ' + shown.length + ' leaves shown, ' + wrong.length + ' not red (' + wrong.slice(0, 2) + ')');
    click(legendItem(red));
    await tick();
    const off = legendItem(red);
    if (off.getAttribute('aria-pressed') !== 'false') fail('released, aria-pressed ' + off.getAttribute('aria-pressed'));
    npu.expanded = new Set([npu.g.root]);
    npu.refresh();
    if (npu.rows.length !== rowsBefore) fail('released: ' + npu.rows.length + ' rows, not the ' + rowsBefore + ' before');
    return 'red on: ' + shown.length + ' red leaves shown; off: ' + rowsBefore + ' rows again';
  });
  /* a closed module holding yellow or red nodes: ringed, with their count */
  const below = (id) => {
    const n = [], stack = [...(npu.g.nodes[id].subnodes || [])];
    while (stack.length) { const k = stack.pop(); if (!npu.g.nodes[k]) continue; n.push(k); stack.push(...(npu.g.nodes[k].subnodes || [])); }
    return n;
  };
  const modules = (id) => (npu.g.nodes[id].subnodes || []).filter((k) => npu.g.nodes[k] && (npu.g.nodes[k].subnodes || []).length);
  const holds = (id) => below(id).some((k) => alarm.includes(colourOf(npu.g.nodes[k])));
  const tops = modules(npu.g.root);
  await check('closed module marker', async () => {
    const flagged = tops.find(holds), plain = tops.find((id) => !holds(id));
    if (!flagged) fail('no top module holds a node outside the first range');
    const inside = below(flagged).map((k) => colourOf(npu.g.nodes[k])).filter((c) => alarm.includes(c));
    const worst = alarm.filter((c) => inside.includes(c)).pop();
    npu.expanded = new Set([npu.g.root]);
    npu.refresh();
    await tick();
    const row = rowOf(npu, flagged), mk = row && row.querySelector('.marker');
    if (!mk) fail(flagged + ' (closed, ' + inside.length + ' nodes to look at inside) has no marker');
    if (mk.textContent.trim() !== String(inside.length)) fail('marker of ' + flagged + ' says ' + mk.textContent + ', not ' + inside.length);
    if (getComputedStyle(mk).backgroundColor !== rgb(worst)) fail('marker of ' + flagged + ' is ' + getComputedStyle(mk).backgroundColor + ', not the worst colour ' + worst);
    if (getComputedStyle(row.querySelector('.node')).boxShadow.indexOf(rgb(worst)) < 0) fail(flagged + ' is not ringed in ' + worst);
    if (plain && rowOf(npu, plain) && rowOf(npu, plain).querySelector('.marker')) fail(plain + ' holds nothing to look at but has a marker');
    click(row.querySelector('.tog'));
    await tick();
    if (rowOf(npu, flagged).querySelector('.marker')) fail('opened, ' + flagged + ' still has its marker');
    return flagged + ': ' + inside.length + ' (' + worst + '), gone when opened' + (plain ? '; ' + plain + ': none' : '');
  });
  /* a collection is filled by its index like every node */
  await check('collection colour', async () => {
    const cols = npu.g.ids.filter((id) => npu.g.nodes[id].node_type === 9 && colourOf(npu.g.nodes[id]));
    if (!cols.length) fail('no collection with an index');
    const seen = [];
    for (const id of cols) {
      const row = await show(npu, id), want = colourOf(npu.g.nodes[id]);
      const got = getComputedStyle(row.querySelector('.node')).backgroundColor;
      if (got !== rgb(want)) fail(id + ' (index ' + npu.g.nodes[id].data.precision_index + ') is filled ' + got + ', not ' + want);
      seen.push(id + ' ' + want);
    }
    return seen.join(', ');
  });
  /* the picture: the first top module holding yellow or red open, its first
   * such module (closed, with its marker) selected */
  const box = document.getElementById('search');
  box.value = '';
  box.dispatchEvent(new Event('input', { bubbles: true }));
  npu.expanded = new Set([npu.g.root]);
  bench.expanded = new Set([bench.g.root]);
  const top = tops.find(holds), sub = top && modules(top).find(holds);
  if (sub) {
    npu.expanded.add(top);
    npu.select(sub, true);
    npu.tree.scrollTop = bench.tree.scrollTop = 0;
    G.panes.forEach((p) => p.draw());
    await tick();
  }
  return out;
})()
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('chromium')
    ap.add_argument('page')
    ap.add_argument('--expect-open-s', type=float, default=0)
    ap.add_argument('--screenshot')
    ap.add_argument('--search', default='conv2d')
    ap.add_argument('--only-open', action='store_true')
    ap.add_argument('--window', default='1600x1000')
    ap.add_argument('--layout', action='store_true')
    a = ap.parse_args()
    width, height = (int(x) for x in a.window.split('x'))
    b = Browser(a.chromium)
    status = 0
    try:
        secs, cpu = b.open('file://' + os.path.abspath(a.page), width, height)
        nodes = b.eval('Object.keys(window.msprobeGraph.panes[0].g.nodes).length')
        print(f'opened {os.path.basename(a.page)} ({os.path.getsize(a.page) / 1e6:.1f} MB, {nodes} nodes) '
              f'in {secs:.2f} s ({cpu:.2f} s of CPU)')
        # the CPU time, not the clock's: a loaded machine stretches the
        # latter whatever the page does
        if a.expect_open_s and cpu > a.expect_open_s:
            print(f'FAIL: opening took {cpu:.2f} s of CPU, more than {a.expect_open_s} s')
            status = 1
        if not a.only_open:
            for line in b.eval(STEPS.replace('SEARCH', json.dumps(a.search))):
                print('  ' + line)
        if a.layout:
            for line in b.eval(LAYOUT):
                print('  ' + line)
                if line.startswith('FAIL'):
                    status = 1
        status |= b.finish(a.screenshot)
    except Exception as e:
        status = b.failed(e)
    finally:
        b.close()
    return status


if __name__ == '__main__':
    sys.exit(main())
