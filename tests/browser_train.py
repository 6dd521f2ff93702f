#!/usr/bin/env python3
"""Opens a train_compare page in headless Chromium over the DevTools
protocol (the Browser of tests/browser_graph.py) and uses it: every checked
metric has its card with the golden and actual curves drawn as SVG, the
tolerance band, a marker at every step out of tolerance; the log scale
toggle redraws them all; the pointer over a chart shows a step's values.
Any console error or uncaught exception fails the test.

usage: browser_train.py CHROMIUM PAGE [--screenshot PNG] [--min-failing N]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_graph import Browser  # noqa: E402

STEPS = r'''
(async () => {
  const P = window.trainPage, out = [];
  const tick = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const fail = (m) => { throw new Error(m); };
  if (!P || !P.ready) fail('the page did not start');
  const cards = [...document.querySelectorAll('.card')];
  if (cards.length !== P.data.metrics.length) fail(cards.length + ' cards for ' + P.data.metrics.length + ' metrics');
  let markers = 0, failing = 0;
  cards.forEach((c, i) => {
    const m = P.data.metrics[i];
    const svg = c.querySelector('svg');
    if (!svg) fail('no chart for ' + m.name);
    if (m.golden.length > 1 && !svg.querySelector('.golden')) fail('no golden curve for ' + m.name);
    if (m.actual.length > 1 && !svg.querySelector('.actual')) fail('no actual curve for ' + m.name);
    if (m.golden.length > 1 && !svg.querySelector('.band')) fail('no tolerance band for ' + m.name);
    const f = svg.querySelectorAll('circle.fail').length;
    if (f !== m.failing.length) fail(m.name + ': ' + f + ' markers for ' + m.failing.length + ' failing steps');
    markers += f; failing += m.failing.length;
    if (c.querySelectorAll('.verdict').length !== m.tests.length) fail(m.name + ': verdicts missing');
  });
  out.push(cards.length + ' charts, ' + markers + ' steps out of tolerance marked');
  /* the pointer over the first chart */
  const svg = cards[0].querySelector('svg'), box = svg.getBoundingClientRect();
  svg.dispatchEvent(new MouseEvent('mousemove', { clientX: box.left + box.width / 2, clientY: box.top + 40, bubbles: true }));
  await tick();
  const hover = svg.querySelector('.hover').textContent;
  if (!/^step \d+: golden .*, actual /.test(hover)) fail('hover shows ' + JSON.stringify(hover));
  out.push('hover: ' + hover);
  /* log scale and back */
  const box2 = document.getElementById('log');
  box2.click();
  await tick();
  if (!P.log || P.drawn !== cards.length) fail('log scale: ' + P.drawn + ' charts redrawn');
  const ticks = [...cards[0].querySelectorAll('.tick')].length;
  box2.click();
  await tick();
  if (P.log || P.drawn !== cards.length) fail('linear scale again: ' + P.drawn + ' charts redrawn');
  out.push('log scale toggled: ' + cards.length + ' charts redrawn twice (' + ticks + ' ticks on the first)');
  return [out, failing];
})()
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('chromium')
    ap.add_argument('page')
    ap.add_argument('--screenshot')
    ap.add_argument('--min-failing', type=int, default=0)
    a = ap.parse_args()
    b = Browser(a.chromium)
    status = 0
    try:
        secs, cpu = b.open('file://' + os.path.abspath(a.page), 1000, 1400)
        print(f'opened {os.path.basename(a.page)} ({os.path.getsize(a.page) / 1e3:.0f} kB) in {secs:.2f} s '
              f'({cpu:.2f} s of CPU)')
        lines, failing = b.eval(STEPS)
        for line in lines:
            print('  ' + line)
        if failing < a.min_failing:
            print(f'FAIL: {failing} failing steps marked, expected at least {a.min_failing}')
            status = 1
        status |= b.finish(a.screenshot)
    except Exception as e:
        status = b.failed(e)
    finally:
        b.close()
    return status


if __name__ == '__main__':
    sys.exit(main())
