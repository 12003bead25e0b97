import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressText, bytes, DEFAULT_LAYOUT, hex, layoutFunction, type LayoutOptions } from '../src/logic/memoryLayout';
import { decodeRange, encodeRange, escapeHtml, layoutForWidth, renderMemoryMap, renderMessage } from '../src/logic/memoryView';
import type { FunctionMemoryMap, LspRange, MemoryBuffer } from '../src/logic/protocol';

const line = (n: number): LspRange => ({ start: { line: n, character: 4 }, end: { line: n, character: 30 } });
const buffer = (name: string, space: string, start: number, size: number, first: number, last: number, reuseGroup: number | null = null): MemoryBuffer => ({
  name,
  space,
  start,
  size,
  firstUse: { index: first, range: line(10 + first) },
  lastUse: { index: last, range: line(10 + last) },
  reuseGroup,
  dtype: 'FP32',
  shape: [size / 4],
  valueSize: size,
});

// Plot area 100..500 (width 510 - 10 margin), lanes 100 high with 20 between: easy numbers.
const options: LayoutOptions = { width: 510, laneHeight: 100, gutter: 100, laneGap: 20, minBoxHeight: 3 };

const kernel: FunctionMemoryMap = {
  name: 'k',
  range: line(3),
  statements: 4,
  spaces: [
    { space: 'Left', capacity: 65536, used: 16384, overflow: false },
    { space: 'Vec', capacity: 1000, used: 1200, overflow: true },
  ],
  buffers: [
    buffer('a', 'Vec', 0, 400, 0, 1, 7),
    buffer('b', 'Vec', 400, 800, 1, 3),
    buffer('c', 'Vec', 0, 4, 2, 3, 7),
    buffer('l', 'Left', 0, 16384, 1, 1),
    buffer('q', 'Acc', 0, 1024, 3, 3),
  ],
};

describe('layoutFunction', () => {
  const layout = layoutFunction(kernel, options);

  it('has one lane per space in hardware order, Vec first, unknown capacities last', () => {
    assert.deepEqual(layout.lanes.map((lane) => [lane.space, lane.y, lane.capacity, lane.overflow]), [
      ['Vec', 20, 1000, true],
      ['Left', 140, 65536, false],
      ['Acc', 260, 0, false],
    ]);
    assert.equal(layout.height, 380);
    assert.deepEqual([layout.plotLeft, layout.plotRight, layout.statements], [100, 500, 4]);
  });

  it('scales an overflowing lane to its highest address and draws the capacity below the top', () => {
    const vec = layout.lanes[0];
    assert.equal(vec.scale, 1200);
    assert.ok(vec.capacityY !== null && Math.abs(vec.capacityY - (120 - 100 * (1000 / 1200))) < 1e-9);
    assert.equal(vec.detail, 'overflow: 1200 B of 1000 B (120%)');
    assert.equal(layout.lanes[1].capacityY, 140);
    assert.equal(layout.lanes[1].detail, '16 KB of 64 KB (25%)');
    assert.equal(layout.lanes[2].capacityY, null);
    assert.equal(layout.lanes[2].detail, '1 KB used');
  });

  it('places each buffer over its live statements and its addresses, red past the capacity', () => {
    const byName = new Map(layout.boxes.map((box) => [box.name, box]));
    const a = byName.get('a');
    const b = byName.get('b');
    assert.ok(a && b);
    // a: statements 0..1 -> x 100..300; addresses 0..400 of 1200 in a lane 20..120.
    assert.deepEqual([a.x, a.width, a.overflow], [100, 200, false]);
    assert.ok(Math.abs(a.y - (120 - 100 / 3)) < 1e-9 && Math.abs(a.height - 100 / 3) < 1e-9);
    assert.deepEqual([b.x, b.width, b.overflow], [200, 300, true]);
    assert.ok(Math.abs(b.y - 20) < 1e-9);
    assert.deepEqual(b.tooltip, [
      'b: Vec [0x0190, 0x04B0) · 800 B',
      'FP32 [200]',
      'live over statements 1–3 (lines 12–14)',
      'ends past the 1000 B capacity of Vec',
    ]);
    assert.deepEqual(b.reveal, line(11));
  });

  it('draws tiny buffers at least minBoxHeight high, sitting on their address', () => {
    const c = layout.boxes.find((box) => box.name === 'c');
    assert.ok(c);
    assert.equal(c.height, 3);
    assert.equal(c.y, 117);
    assert.deepEqual(c.tooltip, ['c: Vec [0x0000, 0x0004) · 4 B', 'FP32 [1]', 'live over statements 2–3 (lines 13–14)', 'reuse group 7']);
  });

  it('colours a reuse group alike and every other buffer apart', () => {
    const colour = new Map(layout.boxes.map((box) => [box.name, box.colour]));
    assert.equal(colour.get('a'), colour.get('c'));
    assert.equal(new Set([colour.get('a'), colour.get('b'), colour.get('l'), colour.get('q')]).size, 4);
  });

  it('widens program order to the last use when the count is missing', () => {
    assert.equal(layoutFunction({ ...kernel, statements: 0 }, options).statements, 4);
    assert.equal(layoutFunction({ ...kernel, statements: 0, buffers: [], spaces: [] }, options).statements, 1);
  });
});

describe('texts', () => {
  it('formats addresses as the hover does', () => {
    assert.equal(hex(0), '0x0000');
    assert.equal(hex(0x1abcd), '0x1ABCD');
    assert.equal(addressText(buffer('t', 'Vec', 0, 4096, 0, 0)), 'Vec [0x0000, 0x1000) · 4096 B');
    assert.equal(bytes(196608), '192 KB');
    assert.equal(bytes(1000), '1000 B');
  });
});

describe('renderMemoryMap', () => {
  const resources = { cspSource: 'vscode-webview://x', nonce: 'N0nce', scriptUri: 'https://file+.vscode-resource/ext/media/memoryMap.js' };

  it('allows only its own nonce: styles and the one script', () => {
    const html = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options);
    assert.match(
      html,
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-N0nce'; script-src 'nonce-N0nce'; img-src vscode-webview:\/\/x">/,
    );
    assert.equal(html.match(/<script /g)?.length, 1);
    assert.match(html, /<script nonce="N0nce" src="https:\/\/file\+\.vscode-resource\/ext\/media\/memoryMap\.js"><\/script>/);
    assert.equal(html.match(/<style /g)?.length, 1);
    assert.match(html, /<style nonce="N0nce">/);
    assert.doesNotMatch(html, / style="/, 'inline style attributes would be refused by the policy');
  });

  it('draws a lane per space and a box per buffer with its details and source', () => {
    const html = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options);
    assert.deepEqual([...html.matchAll(/<g class="(lane[^"]*)" data-space="(\w+)"/g)].map((m) => `${m[2]}:${m[1]}`), [
      'Vec:lane overflow',
      'Left:lane',
      'Acc:lane',
    ]);
    assert.deepEqual([...html.matchAll(/<g class="buffer [^"]*" [^>]*data-name="(\w+)"/g)].map((m) => m[1]), ['a', 'b', 'c', 'l', 'q']);
    assert.match(html, /<g class="buffer c1 overflow" tabindex="0" role="button" aria-label="b: Vec \[0x0190, 0x04B0\) · 800 B\n/);
    assert.match(html, /data-name="b" data-space="Vec" data-tip="b: Vec \[0x0190, 0x04B0\) · 800 B\nFP32 \[200\]\nlive over statements 1–3 \(lines 12–14\)\nends past the 1000 B capacity of Vec" data-reveal="11,4,11,30"/);
    assert.equal(html.match(/<line class="capacity"/g)?.length, 2);
    assert.match(html, /<h2><a data-reveal="3,4,3,30" title="Show the function">k<\/a><\/h2>/);
    assert.match(html, /5 buffers over 4 statements/);
  });

  it('labels a box only when its name fits', () => {
    const html = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options);
    assert.match(html, /data-name="a"[^>]*><rect [^>]*\/><text [^>]*>a<\/text><\/g>/);
    assert.match(html, /data-name="c"[^>]*><rect [^>]*\/><\/g>/, 'c is 3 px high');
  });

  it('explains an empty map: errors, or nothing to allocate', () => {
    const range = line(5);
    const failing = renderMemoryMap(
      { version: 2, functions: [], diagnostics: [{ range, severity: 1, code: 'E307', message: 'shapes <a> & <b>' }] },
      'k.py',
      resources,
    );
    assert.match(failing, /<div class="diagnostics">k\.py:6:5: error: \[E307\] shapes &lt;a&gt; &amp; &lt;b&gt;<\/div>/);
    assert.match(failing, /No memory map for k\.py: it does not compile, so no memory was allocated\./);
    assert.match(renderMemoryMap({ version: 2, functions: [], diagnostics: [] }, 'k.py', resources), /no function with buffers to allocate/);
    assert.match(renderMessage('Asking <now>', resources), /<p class="summary">Asking &lt;now&gt;<\/p>/);
  });
});

describe('renderMemoryMap with a specialisation note', () => {
  const resources = { cspSource: 'c', nonce: 'n', scriptUri: 's' };

  it("shows the server's note above the map, escaped, and nothing without one", () => {
    const note = "'k': specialisation 2 is no longer in the file; using its first (a: [32, 32] <FP32>)";
    const html = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [], note }, 'k.py', resources, options);
    assert.match(
      html,
      /<p class="note">note: &#39;k&#39;: specialisation 2 is no longer in the file; using its first \(a: \[32, 32\] &lt;FP32&gt;\)<\/p>/,
    );
    assert.ok(html.indexOf('class="note"') < html.indexOf('<section class="function"'), 'the note comes before the map');
    const without = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options);
    assert.doesNotMatch(without, /<p class="note">/);
  });
});

describe('layoutForWidth', () => {
  it("draws at the panel's width less its padding, within bounds", () => {
    assert.equal(layoutForWidth(1000).width, 960);
    assert.equal(layoutForWidth(200).width, 480);
    assert.equal(layoutForWidth(10_000).width, 2400);
    assert.deepEqual(layoutForWidth(undefined), DEFAULT_LAYOUT);
    assert.deepEqual(layoutForWidth(Number.NaN), DEFAULT_LAYOUT);
  });
  it('sizes the picture in pixels, not by scaling', () => {
    const html = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', { cspSource: 'c', nonce: 'n', scriptUri: 's' }, options);
    assert.match(html, /<svg xmlns="http:\/\/www.w3.org\/2000\/svg" class="map" width="510" height="380" viewBox="0 0 510 380">/);
  });
});

describe('reveal ranges', () => {
  it('round-trip through the page and refuse anything else', () => {
    const range = { start: { line: 3, character: 1 }, end: { line: 4, character: 0 } };
    assert.deepEqual(decodeRange(encodeRange(range)), range);
    for (const bad of [undefined, 3, '', '1,2,3', '1,2,3,x', '1,-2,3,4', '1.5,2,3,4']) {
      assert.equal(decodeRange(bad), undefined, String(bad));
    }
  });

  it('escapes what goes into attributes', () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
