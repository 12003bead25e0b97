import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { colourBands } from '../src/logic/colourBands';
import { INSTRUCTION_WORD, instructionMarkdown, instructionTarget } from '../src/logic/previewHover';
import { parseInstructionResult, type LspRange, type SourceMapEntry } from '../src/logic/protocol';

// What ptols/instruction answers for TADD (tests/server/test_lsp_instruction.py holds it).
const TADD = {
  instruction: 'TADD',
  target: 'cce',
  op: 'block.add',
  form: '',
  description: 'Element-wise addition of two tiles, with broadcasting.',
  pipe: 'V',
  operands: [{ name: 'lhs', traits: 'in Vec' }, { name: 'rhs', traits: 'in Vec' }],
  attributes: [],
  note: '',
};

describe('preview hovers', () => {
  it('say what the instruction is, on which pipe, with its operands', () => {
    const result = parseInstructionResult({ entries: [TADD, { op: 'no instruction' }] });
    assert.ok(result);
    assert.equal(result.entries.length, 1);
    assert.equal(
      instructionMarkdown(result.entries),
      '**TADD** \u2014 `block.add` \u00b7 V pipe\n\nElement-wise addition of two tiles, with broadcasting.\n\nOperands: `lhs` (in Vec), `rhs` (in Vec)',
    );
  });

  it('separate the ops of a shared instruction and name the variant', () => {
    const row = { ...TADD, instruction: 'TROWEXPANDADD', form: 'row vector rhs', note: 'a note' };
    const sync = { ...TADD, instruction: 'set_flag', op: 'system.sync_src', pipe: 'S', operands: [], attributes: ['set_pipe', 'event_id'] };
    assert.equal(
      instructionMarkdown([row, sync]),
      [
        '**TROWEXPANDADD** \u2014 `block.add` (row vector rhs) \u00b7 V pipe',
        '',
        'Element-wise addition of two tiles, with broadcasting.',
        '',
        'Operands: `lhs` (in Vec), `rhs` (in Vec)',
        '',
        '_a note_',
        '',
        '---',
        '',
        '**set_flag** \u2014 `system.sync_src` \u00b7 S pipe',
        '',
        'Element-wise addition of two tiles, with broadcasting.',
        '',
        'Attributes: `set_pipe`, `event_id`',
      ].join('\n'),
    );
  });

  it('ask for C++ or MLIR spellings by the preview, and none in IR previews', () => {
    assert.equal(instructionTarget('cce'), 'cce');
    assert.equal(instructionTarget('pto-cpp'), 'cce');
    assert.equal(instructionTarget('pto'), 'pto');
    assert.equal(instructionTarget('ir'), undefined);
    assert.equal(instructionTarget('pass:InsertSync'), undefined);
    assert.equal(INSTRUCTION_WORD.exec('  pto.tmatmul.acc ins(')?.[0], 'pto.tmatmul.acc');
    assert.equal(INSTRUCTION_WORD.exec('TADD(tile_z')?.[0], 'TADD');
  });
});

const range = (start: number, end: number, from = 8): LspRange => ({ start: { line: start, character: from }, end: { line: end, character: 40 } });
const entry = (startLine: number, endLine: number, source: LspRange): SourceMapEntry => ({ generated: { startLine, endLine }, source });

describe('colour bands', () => {
  it('tint a statement and its generated lines alike, a loop body by its statements', () => {
    const loop = range(10, 12, 4);
    const bands = colourBands(
      [
        entry(0, 0, range(8, 8)), // load
        entry(1, 1, loop), // for (...) {
        entry(2, 3, range(11, 11)), // add in the loop
        entry(4, 4, range(12, 12)), // store in the loop
        entry(5, 5, loop), // }
        entry(6, 6, range(8, 8)), // the load's wait_flag, placed later
      ],
      3,
    );
    // four statements round three colours: the store takes the load's again
    assert.deepEqual(bands.generated, [[0, 4, 6], [1, 5], [2, 3]]);
    assert.deepEqual(bands.source, [[8, 12], [10], [11]]);
  });
});
