import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Methods,
  parseFunctions,
  parsePasses,
  parsePreviewChanged,
  parsePreviewResult,
  parseMemoryMap,
  parseRunResult,
  parseSourceMap,
  parseSpecialisations,
  parseStatus,
} from '../src/logic/protocol';

const range = { start: { line: 1, character: 2 }, end: { line: 1, character: 5 } };

describe('protocol', () => {
  it('uses the documented method names', () => {
    assert.deepEqual(Methods, {
      preview: 'ptols/preview',
      previewChanged: 'ptols/previewChanged',
      functions: 'ptols/functions',
      passes: 'ptols/passes',
      status: 'ptols/status',
      sourceMap: 'ptols/sourceMap',
      memoryMap: 'ptols/memoryMap',
      run: 'ptols/run',
      timeline: 'ptols/timeline',
      specialisations: 'ptols/specialisations',
      taskGraph: 'ptols/taskGraph',
      passDiff: 'ptols/passDiff',
      instruction: 'ptols/instruction',
    });
  });

  it('reads a preview result and tolerates missing parts', () => {
    assert.deepEqual(
      parsePreviewResult({
        language: 'mlir',
        content: 'x',
        version: 7,
        diagnostics: [{ range, severity: 1, code: 'PTO1', message: 'm' }, { message: 'no range', code: 12 }, 'junk'],
      }),
      {
        language: 'mlir',
        content: 'x',
        version: 7,
        diagnostics: [
          { range, severity: 1, code: 'PTO1', message: 'm' },
          { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 1, code: '12', message: 'no range' },
        ],
      },
    );
    assert.deepEqual(parsePreviewResult({ content: '' }), { language: 'python', content: '', version: null, diagnostics: [] });
    assert.equal(parsePreviewResult(null), undefined);
    assert.equal(parsePreviewResult({ content: 'x', note: 'the first is used' })?.note, 'the first is used');
    assert.equal('note' in (parsePreviewResult({ content: 'x', note: 3 }) ?? {}), false);
    assert.equal(parsePreviewResult({ language: 'cpp' }), undefined);
  });

  it('reads functions and skips malformed entries', () => {
    assert.deepEqual(parseFunctions({ functions: [{ name: 'f', program: 'P', range }, { name: 3 }, { name: 'g' }] }), [
      { name: 'f', program: 'P', range },
      { name: 'g', program: null, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } } },
    ]);
    assert.deepEqual(parseFunctions(undefined), []);
    assert.deepEqual(parseFunctions({ functions: 'x' }), []);
  });

  it('reads specialisations and skips malformed entries', () => {
    const kernels = {
      kernels: [
        { name: 'k', range, specialisations: [{ index: 1, label: 'call at line 9: a: [64] FP32' }, { index: 'x' }] },
        { name: 'bad' },
      ],
    };
    assert.deepEqual(parseSpecialisations(kernels), [
      { name: 'k', range, specialisations: [{ index: 1, label: 'call at line 9: a: [64] FP32' }] },
    ]);
    assert.deepEqual(parseSpecialisations(null), []);
    const keyed = { kernels: [{ name: 'k', range, specialisations: [{ index: 2, label: 'call at line 9', key: 'a: Tensor[[64], FP32]' }] }] };
    assert.deepEqual(parseSpecialisations(keyed)[0].specialisations, [{ index: 2, label: 'call at line 9', key: 'a: Tensor[[64], FP32]' }]);
  });

  it('reads passes and pipelines', () => {
    assert.deepEqual(
      parsePasses({
        passes: [{ name: 'A', description: 'a' }, { name: 'B' }, { description: 'nameless' }],
        pipelines: { default: ['A', 'B', 7], ptoas: 'A' },
      }),
      { passes: [{ name: 'A', description: 'a' }, { name: 'B', description: '' }], pipelines: { default: ['A', 'B'] } },
    );
    assert.deepEqual(parsePasses(null), { passes: [], pipelines: {} });
  });

  it('reads notifications', () => {
    assert.deepEqual(parseStatus({ state: 'analysing', uri: 'file:///a.py' }), { state: 'analysing', uri: 'file:///a.py' });
    assert.deepEqual(parseStatus({ state: 'ready' }), { state: 'ready' });
    assert.equal(parseStatus({ state: 'busy' }), undefined);
    assert.deepEqual(parsePreviewChanged({ uri: 'file:///a.py', version: 3 }), { uri: 'file:///a.py', version: 3 });
    assert.deepEqual(parsePreviewChanged({ uri: 'file:///a.py' }), { uri: 'file:///a.py', version: null });
    assert.equal(parsePreviewChanged({ version: 3 }), undefined);
  });

  it('reads a source map, dropping malformed entries and sorting by generated line', () => {
    const other = { start: { line: 4, character: 0 }, end: { line: 4, character: 9 } };
    assert.deepEqual(
      parseSourceMap({
        version: 2,
        content: 'a\nb\nc',
        entries: [
          { generated: { startLine: 2, endLine: 2 }, source: other },
          { generated: { startLine: 0, endLine: 1 }, source: range },
          { generated: { startLine: 3, endLine: 1 }, source: range },
          { generated: { startLine: -1, endLine: 0 }, source: range },
          { generated: { startLine: 0.5, endLine: 1 }, source: range },
          { generated: { startLine: 0, endLine: 0 } },
          'junk',
        ],
      }),
      {
        version: 2,
        content: 'a\nb\nc',
        entries: [
          { generated: { startLine: 0, endLine: 1 }, source: range },
          { generated: { startLine: 2, endLine: 2 }, source: other },
        ],
      },
    );
    assert.deepEqual(parseSourceMap({ content: '' }), { version: null, content: '', entries: [] });
    assert.equal(parseSourceMap({ entries: [] }), undefined);
  });

  it('reads a memory map, checking every buffer and space', () => {
    const use = (index: number) => ({ index, range });
    const buffer = {
      name: 'tile_x',
      space: 'Vec',
      start: 0,
      size: 32768,
      firstUse: use(1),
      lastUse: use(3),
      reuseGroup: 0,
      dtype: 'FP32',
      shape: [128, 64],
      valueSize: 32768,
    };
    assert.deepEqual(
      parseMemoryMap({
        version: 5,
        functions: [
          {
            name: 'k',
            range,
            statements: 6,
            spaces: [{ space: 'Vec', capacity: 196608, used: 32768, overflow: false }, { space: 'Mat', capacity: 'x' }, { space: 'Acc', capacity: 10, used: 20 }],
            buffers: [
              buffer,
              { ...buffer, name: 'late', firstUse: use(4), lastUse: use(2), reuseGroup: 'g', dtype: 3, shape: [2, 'x'], valueSize: 'x' },
              { ...buffer, size: -1 },
              { ...buffer, firstUse: {} },
            ],
          },
          { range },
        ],
        diagnostics: [{ range, severity: 1, code: 'E402', message: 'too big' }],
      }),
      {
        version: 5,
        functions: [
          {
            name: 'k',
            range,
            statements: 6,
            spaces: [{ space: 'Vec', capacity: 196608, used: 32768, overflow: false }, { space: 'Acc', capacity: 10, used: 20, overflow: true }],
            // a value size that is not a count is the buffer's
            buffers: [buffer, { ...buffer, name: 'late', firstUse: use(4), lastUse: use(4), reuseGroup: null, dtype: '', shape: [2], valueSize: 32768 }],
          },
        ],
        diagnostics: [{ range, severity: 1, code: 'E402', message: 'too big' }],
      },
    );
    assert.deepEqual(parseMemoryMap({ functions: [] }), { version: null, functions: [], diagnostics: [] });
    assert.equal(parseMemoryMap({ version: 1 }), undefined);
    assert.deepEqual(parseMemoryMap({ functions: [], note: "'k': gone" }), { version: null, functions: [], diagnostics: [], note: "'k': gone" });
  });

  it('reads a run result', () => {
    assert.deepEqual(
      parseRunResult({
        ok: false,
        outputs: [{ name: 'z', maxAbsError: 2, maxRelError: 1, ok: false }, { name: 'y', ok: true }, { name: 'q' }],
        message: 'm',
        log: 'l',
      }),
      {
        ok: false,
        outputs: [
          { name: 'z', maxAbsError: 2, maxRelError: 1, ok: false },
          { name: 'y', maxAbsError: Number.NaN, maxRelError: Number.NaN, ok: true },
        ],
        message: 'm',
        log: 'l',
      },
    );
    assert.deepEqual(parseRunResult({ ok: true }), { ok: true, outputs: [], message: '', log: '' });
    assert.equal(parseRunResult({ message: 'no verdict' }), undefined);
  });
});
