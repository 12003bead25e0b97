import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { layoutFunction, type LayoutOptions } from '../src/logic/memoryLayout';
import { proofText, proveNoOverlap } from '../src/logic/memoryProof';
import { DEFAULT_VIEW, renderMemoryMap } from '../src/logic/memoryView';
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
const options: LayoutOptions = { width: 510, laneHeight: 100, gutter: 100, laneGap: 20, minBoxHeight: 3 };
const resources = { cspSource: 'vscode-resource:', nonce: 'n0nce', scriptUri: 'vscode-resource:/media/memoryMap.js' };

// a and c share reuse group 7's buffer at different times; b sits right above a.
const kernel: FunctionMemoryMap = {
  name: 'k',
  range: line(3),
  statements: 4,
  spaces: [
    { space: 'Vec', capacity: 1200, used: 1200, overflow: false },
    { space: 'Left', capacity: 65536, used: 16384, overflow: false },
  ],
  buffers: [
    buffer('a', 'Vec', 0, 400, 0, 1, 7),
    buffer('b', 'Vec', 400, 800, 1, 3),
    buffer('c', 'Vec', 0, 4, 2, 3, 7),
    buffer('l', 'Left', 0, 16384, 1, 1),
  ],
};
// d's bytes 300..500 meet a's (0..400) at statement 1, where both are live.
const clash: FunctionMemoryMap = { ...kernel, buffers: [...kernel.buffers, buffer('d', 'Vec', 300, 200, 1, 2)] };

describe('the proof line', () => {
  it('checks every pair of different buffers in one space', () => {
    const proof = proveNoOverlap(kernel);
    assert.deepEqual([proof.pairs, proof.overlap], [2, undefined]);
    assert.equal(proofText(proof), '\u2713 No two buffers overlap in address while both are live (2 pairs of buffers checked).');
  });

  it('names the pair that overlaps while both are live, and where', () => {
    const proof = proveNoOverlap(clash);
    assert.equal(
      proofText(proof),
      '\u2717 a [0x0000, 0x0190) and d [0x012C, 0x01F4) overlap in Vec while both are live (statement 1).',
    );
    const page = renderMemoryMap({ version: 1, functions: [clash], diagnostics: [] }, 'k.py', resources, options);
    assert.match(page, /<p class="proof bad">\u2717 a \[0x0000, 0x0190\) and d/);
    assert.match(page, /<g class="buffer c\d conflict"[^>]* data-name="a"/);
    assert.match(page, /<g class="buffer c\d conflict"[^>]* data-name="d"/);
    assert.doesNotMatch(page, /conflict"[^>]* data-name="b"/);
    const fine = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options);
    assert.match(fine, /<p class="proof ok">\u2713 No two buffers overlap/);
  });

  it('counts only the bytes a tile occupies in a larger buffer', () => {
    const small = { ...buffer('d', 'Vec', 300, 200, 1, 2), start: 400, valueSize: 100 };
    assert.equal(proveNoOverlap({ ...kernel, buffers: [buffer('a', 'Vec', 0, 400, 0, 3), small] }).overlap, undefined);
  });
});

describe('the memory map toggles', () => {
  it('scales a lane to the bytes used instead of the capacity', () => {
    const used = layoutFunction(kernel, { ...options, scaleTo: 'used' });
    const left = used.lanes.find((lane) => lane.space === 'Left');
    assert.ok(left);
    assert.deepEqual([left.scale, left.capacityY], [16384, null]);
    const l = used.boxes.find((box) => box.name === 'l');
    assert.ok(l && Math.abs(l.height - 100) < 1e-9); // fills the lane
    const capacity = layoutFunction(kernel, options).lanes.find((lane) => lane.space === 'Left');
    assert.deepEqual([capacity?.scale, capacity?.capacityY], [65536, 140]);
  });

  it('leaves the hidden spaces out', () => {
    const vecOnly = layoutFunction(kernel, { ...options, hidden: ['Left'] });
    assert.deepEqual(vecOnly.lanes.map((lane) => lane.space), ['Vec']);
    assert.deepEqual(vecOnly.boxes.map((box) => box.name), ['a', 'b', 'c']);
    const page = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options, {
      ...DEFAULT_VIEW,
      hidden: ['Left'],
      scaleTo: 'used',
    });
    assert.match(page, /<button data-view="scale" data-value="used" aria-pressed="true">used<\/button>/);
    assert.match(page, /<button data-view="space" data-value="Left" aria-pressed="false">Left<\/button>/);
    assert.doesNotMatch(page, /data-name="l"/);
  });
});

describe('tiles in a larger buffer', () => {
  it('are drawn as the sub-range they occupy, inside an outline of the whole buffer', () => {
    const tile = { ...buffer('t', 'Vec', 0, 600, 0, 1), valueSize: 120 };
    const layout = layoutFunction({ ...kernel, buffers: [tile] }, options);
    const box = layout.boxes[0];
    // lane 20..120 for 1200 bytes: the tile's 120 bytes are 10 high, the buffer's 600 are 50
    assert.ok(Math.abs(box.height - 10) < 1e-9 && Math.abs(box.y - 110) < 1e-9);
    assert.ok(box.extent !== null && Math.abs(box.extent.height - 50) < 1e-9 && Math.abs(box.extent.y - 70) < 1e-9);
    assert.equal(box.tooltip[1], 'the tile: [0x0000, 0x0078) · 120 B of the buffer');
    const page = renderMemoryMap({ version: 1, functions: [{ ...kernel, buffers: [tile] }], diagnostics: [] }, 'k.py', resources, options);
    assert.match(page, /<rect class="extent" x="100" y="70" width="200" height="50"\/>/);
    assert.equal(layoutFunction(kernel, options).boxes[0].extent, null);
  });
});

describe('a pinned buffer', () => {
  it('is marked in the picture and named for the panel to post back', () => {
    const page = renderMemoryMap({ version: 1, functions: [kernel], diagnostics: [] }, 'k.py', resources, options, {
      ...DEFAULT_VIEW,
      pinned: 'k/b',
    });
    assert.match(page, /<g class="buffer c\d pinned"[^>]* data-name="b"[^>]* data-pin="k\/b">/);
    assert.doesNotMatch(page, /pinned"[^>]* data-name="a"/);
  });
});
