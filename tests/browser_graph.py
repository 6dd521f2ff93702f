#!/usr/bin/env python3
"""Opens graph pages in headless Chromium, driven over the DevTools protocol
(--remote-debugging-pipe: JSON messages on file descriptors 3 and 4, no
websocket, nothing but the standard library), and uses them as a person
would: expands a module by its triangle, searches a name, clicks a matched
node and checks that the other run's tree follows to its counterpart and the
details show its inputs. Any console error or uncaught exception fails the
test. Prints how long the page took to open (on the clock, and in CPU time
of Chromium's processes, which --expect-open-s bounds); can save a
screenshot.

usage: browser_graph.py CHROMIUM PAGE [--expect-open-s S] [--screenshot PNG]
                        [--steps compare|build|time]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('chromium')
    ap.add_argument('page')
    ap.add_argument('--expect-open-s', type=float, default=0)
    ap.add_argument('--screenshot')
    ap.add_argument('--search', default='conv2d')
    ap.add_argument('--only-open', action='store_true')
    a = ap.parse_args()
    b = Browser(a.chromium)
    status = 0
    try:
        secs, cpu = b.open('file://' + os.path.abspath(a.page), 1600, 1000)
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
        if a.screenshot:
            shot = b.send('Page.captureScreenshot', {'format': 'png'})
            with open(a.screenshot, 'wb') as f:
                f.write(base64.b64decode(shot['data']))
            print(f'  screenshot: {a.screenshot}')
        errors = b.errors()
        if errors:
            print('FAIL: console errors:\n  ' + '\n  '.join(errors))
            status = 1
    except Exception as e:
        print(f'FAIL: {e}')
        for err in b.errors():
            print('  ' + err)
        status = 1
    finally:
        b.close()
    return status


if __name__ == '__main__':
    sys.exit(main())
