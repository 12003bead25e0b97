import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  Methods,
  parseFunctions,
  parsePasses,
  parsePreviewChanged,
  parsePreviewResult,
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
});
