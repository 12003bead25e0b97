import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeRange } from '../src/logic/memoryView';
import { parseTimeline, type FunctionTimeline } from '../src/logic/protocol';
import { axisTicks, layoutTimeline, timelineLayoutForWidth } from '../src/logic/timelineLayout';
import { renderTimeline, summaryOf } from '../src/logic/timelineView';
import { SIMPLE_ADD_ANSWER } from './timelineAnswer';

const resources = { cspSource: 'vscode-webview:', nonce: 'n0nce', scriptUri: 'webview:/ext/media/memoryMap.js' };

function simpleAdd(): FunctionTimeline {
  const parsed = parseTimeline(SIMPLE_ADD_ANSWER);
  assert.ok(parsed);
  return parsed.functions[0];
}

describe('parseTimeline', () => {
  it('reads an answer of the server', () => {
    const parsed = parseTimeline(SIMPLE_ADD_ANSWER);
    assert.deepEqual(parsed, SIMPLE_ADD_ANSWER);
  });

  it('drops what it cannot trust', () => {
    const parsed = parseTimeline({
      version: 'one',
      frequencyHz: -1,
      functions: [
        {
          name: 'k',
          total: 10,
          instructions: [{ name: 'TADD', pipe: 'V', start: 0, cycles: 5, line: 2 }, { name: 'TADD', pipe: 'V', start: -1 }],
          arrows: [{ signal: 'MTE2', wait: 'V', setTime: 1 }],
          criticalPath: [0, 7],
          longestWait: { pipe: 'V' },
        },
        { name: 'no total' },
      ],
    });
    assert.deepEqual(parsed, {
      version: null,
      frequencyHz: null,
      message: '',
      functions: [
        {
          name: 'k',
          range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          total: 10,
          lanes: [],
          instructions: [{ name: 'TADD', pipe: 'V', start: 0, cycles: 5, line: 2 }],
          arrows: [],
          criticalPath: [0],
          bottleneck: null,
          longestWait: null,
          notes: [],
        },
      ],
    });
    assert.equal(parseTimeline({ functions: 3 }), undefined);
  });
});

describe('layoutTimeline', () => {
  it('puts a lane per pipe in the order data flows, with its busy cycles', () => {
    const layout = layoutTimeline(simpleAdd(), { width: 1000, laneHeight: 30, labelWidth: 150, maxBoxes: 4000 });
    assert.deepEqual(
      layout.lanes.map((l) => [l.pipe, l.y, l.detail, l.bottleneck]),
      [
        ['MTE2', 22, '1,118 cycles busy (66 %)', true],
        ['V', 58, '266 cycles busy (16 %)', false],
        ['MTE3', 94, '299 cycles busy (18 %)', false],
      ],
    );
    assert.equal(layout.height, 132);
  });

  it('scales each instruction to its start and length in cycles', () => {
    // plot from x=150 to x=988: 838 px for 1,686 cycles
    const layout = layoutTimeline(simpleAdd(), { width: 1000, laneHeight: 30, labelWidth: 150, maxBoxes: 4000 });
    const scale = 838 / 1686;
    assert.deepEqual(
      layout.boxes.map((b) => [b.name, b.pipe, b.line, b.critical]),
      [
        ['TLOAD', 'MTE2', 18, true],
        ['TLOAD', 'MTE2', 19, true],
        ['TADD', 'V', 20, true],
        ['TSTORE', 'MTE3', 21, true],
      ],
    );
    const tadd = layout.boxes[2];
    assert.ok(Math.abs(tadd.x - (150 + 1121 * scale)) < 1e-9);
    assert.ok(Math.abs(tadd.width - 266 * scale) < 1e-9);
    assert.equal(tadd.y, 58 + 5);
    assert.deepEqual(tadd.tooltip, ['TADD on V: 266 cycles (16 % of the kernel)', 'from cycle 1,121 to 1,387', 'line 21']);
  });

  it('draws each set → wait from the setting lane to the waiting one', () => {
    const layout = layoutTimeline(simpleAdd(), { width: 1000, laneHeight: 30, labelWidth: 150, maxBoxes: 4000 });
    const [mte2ToV, vToMte3] = layout.arrows;
    assert.equal(mte2ToV.y1, 22 + 30); // the bottom of MTE2's lane
    assert.equal(mte2ToV.y2, 58); // the top of V's
    assert.equal(vToMte3.y1, 58 + 30);
    assert.equal(vToMte3.line, 21);
    assert.equal(mte2ToV.tooltip, 'MTE2 → V: set at cycle 1,121 (line 21), waited for until 1,121 (line 21)');
  });

  it('leaves out instructions beyond maxBoxes and says how many', () => {
    const layout = layoutTimeline(simpleAdd(), { width: 1000, laneHeight: 30, labelWidth: 150, maxBoxes: 3 });
    assert.equal(layout.boxes.length, 3);
    assert.equal(layout.leftOut, 1);
  });

  it('marks round cycle counts on the axis', () => {
    assert.deepEqual(axisTicks(1686), [0, 500, 1000, 1500]);
    assert.deepEqual(axisTicks(0), [0]);
    assert.equal(timelineLayoutForWidth(541).width, 501);
    assert.equal(timelineLayoutForWidth(undefined).width, 900);
  });
});

describe('renderTimeline', () => {
  it('draws each instruction as a box that reveals its source line', () => {
    const parsed = parseTimeline(SIMPLE_ADD_ANSWER);
    assert.ok(parsed);
    const html = renderTimeline(parsed, 'simple_add.py', resources);
    const boxes = [...html.matchAll(/<g class="buffer instruction[^"]*"[^>]*data-name="(\w+)" data-pipe="(\w+)" data-line="(\d+)"[^>]*data-reveal="([\d,]+)">/g)];
    assert.deepEqual(
      boxes.map((m) => [m[1], m[2], m[3], decodeRange(m[4])?.start.line]),
      [
        ['TLOAD', 'MTE2', '19', 18],
        ['TLOAD', 'MTE2', '20', 19],
        ['TADD', 'V', '21', 20],
        ['TSTORE', 'MTE3', '22', 21],
      ],
    );
    assert.equal([...html.matchAll(/<g class="arrow"/g)].length, 2);
    assert.match(html, /<style nonce="n0nce">/);
    assert.match(html, /MTE2 \(bottleneck\)/);
  });

  it('says why there is no timeline', () => {
    const html = renderTimeline(
      { version: 1, frequencyHz: null, functions: [], message: 'no pto-isa cost tables: set PTO_ISA_ROOT to a pto-isa checkout' },
      'k.py',
      resources,
    );
    assert.match(html, /No timeline for k\.py: no pto-isa cost tables: set PTO_ISA_ROOT to a pto-isa checkout/);
  });

  it('sums the kernel up: total, time at the clock, bottleneck and the longest wait', () => {
    assert.deepEqual(summaryOf(simpleAdd(), 1.85e9), [
      '≈ 1,686 cycles (0.91 µs at 1.85 GHz) · bottleneck MTE2 (66 % busy)',
      'Longest wait: MTE3 idles 1,384 cycles at line 22, waiting for V (set at line 22).',
    ]);
  });
});
