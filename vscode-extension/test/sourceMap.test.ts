import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LspRange, SourceMapEntry } from '../src/logic/protocol';
import { entryAt, generatedSpansFor, mapMatchesPreview, mergeSpans } from '../src/logic/sourceMap';

const range = (startLine: number, startCharacter: number, endLine: number, endCharacter: number): LspRange => ({
  start: { line: startLine, character: startCharacter },
  end: { line: endLine, character: endCharacter },
});
const entry = (startLine: number, endLine: number, source: LspRange): SourceMapEntry => ({ generated: { startLine, endLine }, source });
const at = (line: number, character: number) => ({ line, character });

// A function (lines 3-9) whose body has a loop (5-8) around two statements, one line each, and
// a line (7) holding two statements.
const entries: SourceMapEntry[] = [
  entry(0, 1, range(3, 0, 9, 20)), // signature and braces
  entry(2, 2, range(4, 4, 4, 40)), // load
  entry(3, 3, range(5, 4, 8, 30)), // for (...) {
  entry(4, 5, range(6, 8, 6, 44)), // add, two instructions
  entry(6, 6, range(7, 8, 7, 20)), // first statement of line 7
  entry(7, 7, range(7, 22, 7, 40)), // second statement of line 7
  entry(8, 8, range(5, 4, 8, 30)), // closing brace of the loop
  entry(9, 9, range(4, 4, 4, 40)), // the load's wait_flag, placed later
];

describe('generatedSpansFor', () => {
  it('shows every generated line of the statement under the cursor, joined when adjacent', () => {
    assert.deepEqual(generatedSpansFor(entries, at(6, 10)), [{ startLine: 4, endLine: 5 }]);
    assert.deepEqual(generatedSpansFor(entries, at(4, 0)), [{ startLine: 2, endLine: 2 }, { startLine: 9, endLine: 9 }]);
  });

  it('on a loop header shows the loop, inside it the inner statement', () => {
    assert.deepEqual(generatedSpansFor(entries, at(5, 6)), [{ startLine: 3, endLine: 3 }, { startLine: 8, endLine: 8 }]);
    assert.deepEqual(generatedSpansFor(entries, at(8, 2)), [{ startLine: 3, endLine: 3 }, { startLine: 8, endLine: 8 }]);
    assert.deepEqual(generatedSpansFor(entries, at(3, 0)), [{ startLine: 0, endLine: 1 }]);
  });

  it('prefers the statement at the cursor column when a line holds two', () => {
    assert.deepEqual(generatedSpansFor(entries, at(7, 9)), [{ startLine: 6, endLine: 6 }]);
    assert.deepEqual(generatedSpansFor(entries, at(7, 30)), [{ startLine: 7, endLine: 7 }]);
    assert.deepEqual(generatedSpansFor(entries, at(7, 21)), [{ startLine: 6, endLine: 7 }]);
  });

  it('shows nothing for lines no code came from', () => {
    assert.deepEqual(generatedSpansFor(entries, at(0, 0)), []);
    assert.deepEqual(generatedSpansFor(entries, at(12, 0)), []);
    assert.deepEqual(generatedSpansFor([], at(4, 4)), []);
  });
});

describe('mergeSpans', () => {
  it('sorts and joins touching or overlapping spans', () => {
    assert.deepEqual(
      mergeSpans([{ startLine: 9, endLine: 9 }, { startLine: 1, endLine: 2 }, { startLine: 3, endLine: 4 }, { startLine: 4, endLine: 6 }]),
      [{ startLine: 1, endLine: 6 }, { startLine: 9, endLine: 9 }],
    );
  });
});

describe('entryAt', () => {
  it('finds the entry holding a generated line', () => {
    assert.deepEqual(entryAt(entries, 5)?.source, range(6, 8, 6, 44));
    assert.deepEqual(entryAt(entries, 0)?.source, range(3, 0, 9, 20));
    assert.equal(entryAt(entries, 10), undefined);
  });
});

describe('mapMatchesPreview', () => {
  const map = { version: 3, content: 'a\nb', entries };
  it('accepts the preview of exactly that content (which ends in a newline)', () => {
    assert.equal(mapMatchesPreview(map, 'a\nb\n'), true);
    assert.equal(mapMatchesPreview({ ...map, content: 'a\nb\n' }, 'a\nb\n'), true);
  });
  it('refuses other text and an empty map', () => {
    assert.equal(mapMatchesPreview(map, 'a\nc\n'), false);
    assert.equal(mapMatchesPreview({ ...map, content: '' }, '\n'), false);
  });
});
