import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodePreviewQuery,
  encodePreviewQuery,
  parseTarget,
  previewPath,
  sourceStem,
  targetLabel,
  targetLanguage,
  type PreviewRequest,
} from '../src/logic/previewUri';

describe('preview targets', () => {
  it('parses the four kinds and rejects the rest', () => {
    assert.equal(parseTarget('cce'), 'cce');
    assert.equal(parseTarget('pto'), 'pto');
    assert.equal(parseTarget('pto-cpp'), 'pto-cpp');
    assert.equal(parseTarget('ir'), 'ir');
    assert.equal(parseTarget('pass:InsertSync'), 'pass:InsertSync');
    assert.equal(parseTarget('pass:'), undefined);
    assert.equal(parseTarget('pass:../x'), undefined);
    assert.equal(parseTarget('CCE'), undefined);
    assert.equal(parseTarget(''), undefined);
  });
  it('maps targets to languages and labels', () => {
    assert.deepEqual(
      (['cce', 'pto', 'pto-cpp', 'ir', 'pass:ConvertToSSA'] as const).map((t) => [targetLanguage(t), targetLabel(t)]),
      [
        ['cpp', 'C++'],
        ['mlir', 'MLIR'],
        ['cpp', 'PTOAS C++'],
        ['python', 'IR'],
        ['python', 'IR after ConvertToSSA'],
      ],
    );
  });
});

describe('preview paths', () => {
  it('names the tab after the source, the function and the target', () => {
    const source = 'file:///work/kernels/simple_add.py';
    assert.equal(previewPath({ source, target: 'cce' }), '/simple_add.cpp');
    assert.equal(previewPath({ source, target: 'pto' }), '/simple_add.mlir');
    assert.equal(previewPath({ source, target: 'ir' }), '/simple_add.ir.py');
    assert.equal(previewPath({ source, target: 'pass:InsertSync', function: 'main' }), '/simple_add.main.InsertSync.py');
  });
  it('decodes escaped file names and copes with odd URIs', () => {
    assert.equal(sourceStem('file:///tmp/my%20kernel.py'), 'my kernel');
    assert.equal(sourceStem('file:///tmp/bad%E0.py'), 'bad%E0');
    assert.equal(sourceStem('untitled:Untitled-1'), 'Untitled-1');
    assert.equal(sourceStem('file:///tmp/kernel.py?x=1#frag'), 'kernel');
    assert.equal(sourceStem('file:///'), 'untitled');
  });
});

describe('preview queries', () => {
  const cases: PreviewRequest[] = [
    { source: 'file:///work/k/simple_add.py', target: 'cce' },
    { source: 'file:///work/k%20dir/a%26b.py', target: 'pass:AllocateMemoryAddr', function: 'main' },
    { source: 'file:///c%3A/Users/x/k.py', target: 'pto', function: 'f_2' },
    { source: 'file:///w/k.py?weird=1&target=pto', target: 'ir' },
  ];
  for (const request of cases) {
    it(`round-trips ${request.source} ${request.target}`, () => {
      const decoded = decodePreviewQuery(encodePreviewQuery(request));
      assert.deepEqual(decoded, request);
    });
  }
  it('omits an absent function', () => {
    assert.equal(encodePreviewQuery({ source: 'file:///a.py', target: 'cce' }), 'source=file%3A%2F%2F%2Fa.py&target=cce');
  });
  it('rejects incomplete or invalid queries', () => {
    assert.equal(decodePreviewQuery(''), undefined);
    assert.equal(decodePreviewQuery('target=cce'), undefined);
    assert.equal(decodePreviewQuery('source=file%3A%2F%2F%2Fa.py'), undefined);
    assert.equal(decodePreviewQuery('source=file%3A%2F%2F%2Fa.py&target=wasm'), undefined);
    assert.deepEqual(decodePreviewQuery('source=file%3A%2F%2F%2Fa.py&target=ir&function='), {
      source: 'file:///a.py',
      target: 'ir',
    });
  });
});
