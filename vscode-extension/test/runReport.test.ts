import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RunResult } from '../src/logic/protocol';
import { runReport, runVerdict } from '../src/logic/runReport';

const passed: RunResult = {
  ok: true,
  outputs: [
    { name: 'x', maxAbsError: 0, maxRelError: 0, ok: true },
    { name: 'output', maxAbsError: 1.5e-7, maxRelError: 0.000123456, ok: true },
  ],
  message: 'simple_add: simulator and reference interpreter agree on 2 results',
  log: 'ptoc: building simple_add with clang++-19\n',
};

describe('runVerdict', () => {
  it("uses the server's summary when there is one", () => {
    assert.equal(runVerdict('simple_add', passed), 'simple_add: simulator and reference interpreter agree on 2 results');
  });
  it('says itself what happened otherwise', () => {
    assert.equal(runVerdict('f', { ...passed, message: '' }), 'f: the simulator and the reference interpreter agree on 2 results');
    const failed: RunResult = { ok: false, outputs: [{ name: 'z', maxAbsError: 2, maxRelError: 1, ok: false }], message: '', log: '' };
    assert.equal(runVerdict('f', failed), 'f: z differ from the reference interpreter');
    assert.equal(runVerdict('f', { ...failed, outputs: [] }), 'f: the run failed');
  });
});

describe('runReport', () => {
  it('lists every output with its errors, then the log', () => {
    assert.equal(
      runReport('simple_add', 'simple_add.py', passed, new Date(Date.UTC(2026, 10, 23, 22, 5, 9))),
      [
        '=== simple_add in simple_add.py at 22:05:09 UTC: passed',
        'simple_add: simulator and reference interpreter agree on 2 results',
        '  x       max abs error 0, max rel error 0: ok',
        '  output  max abs error 1.5e-7, max rel error 0.000123: ok',
        '--- log',
        'ptoc: building simple_add with clang++-19',
        '',
      ].join('\n'),
    );
  });
  it("says which specialisation ran when the chosen one is gone (the server's note)", () => {
    const note = "'scale': specialisation 2 is no longer in the file; using its first (call at line 16: a: [32, 32] FP32)";
    const report = runReport('scale', 'k.py', { ...passed, outputs: [], log: '', note }, new Date(Date.UTC(2026, 0, 1)));
    assert.equal(report, `=== scale in k.py at 00:00:00 UTC: passed\n${passed.message}\nnote: ${note}\n`);
  });
  it('marks mismatches and unknown errors', () => {
    const failed: RunResult = {
      ok: false,
      outputs: [{ name: 'z', maxAbsError: Number.NaN, maxRelError: 0.5, ok: false }],
      message: 'f: z differs',
      log: '',
    };
    assert.equal(
      runReport('f', 'k.py', failed, new Date(Date.UTC(2026, 0, 1, 0, 0, 0))),
      '=== f in k.py at 00:00:00 UTC: FAILED\nf: z differs\n  z  max abs error ?, max rel error 0.5: MISMATCH\n',
    );
  });
});
