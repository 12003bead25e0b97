import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  diffTitle,
  hiddenPasses,
  passCounts,
  shownPasses,
  sourceOfLine,
  stageFor,
  stageFromPath,
  stagePath,
  step,
} from '../src/logic/passExplorer';
import { parsePassDiff, type PassDiffResult } from '../src/logic/protocol';

const range = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });

// The shape of ptols/passDiff's answer for tests/server/test_lsp_pass_diff.py's kernel, cut
// down: InitMemRef and InsertSync changed the IR, the others did not.
const ANSWER: unknown = {
  version: 3,
  pipeline: 'default',
  programs: [
    {
      program: 'Demo',
      stages: [
        { name: 'input', content: 'a\nb\n', entries: [{ generated: { startLine: 1, endLine: 1 }, source: range(14, 8, 39) }] },
        { name: 'InitMemRef', content: 'a\nB\n', entries: [] },
        {
          name: 'InsertSync',
          content: 'a\nsync\nB\n',
          entries: [{ generated: { startLine: 1, endLine: 2 }, source: range(14, 8, 39) }],
        },
      ],
      passes: [
        { name: 'ConvertToSSA', description: 'SSA', before: 0, after: 0, added: 0, removed: 0, changes: [] },
        { name: 'InitMemRef', description: 'memrefs', before: 0, after: 1, added: 1, removed: 1, changes: [[1, 2, 1, 2]] },
        { name: 'MemoryReuse', description: '', before: 1, after: 1, added: 0, removed: 0, changes: [] },
        { name: 'InsertSync', description: 'sync', before: 1, after: 2, added: 1, removed: 0, changes: [[1, 1, 1, 2]] },
        { name: 'Broken', description: '', before: 1, after: 9, added: 0, removed: 0, changes: [] },
      ],
    },
  ],
  diagnostics: [],
};

function answer(): PassDiffResult {
  const parsed = parsePassDiff(ANSWER);
  assert.ok(parsed);
  return parsed;
}

describe('parsePassDiff', () => {
  it('keeps well-formed passes and drops one naming a stage that is not there', () => {
    const result = answer();
    assert.equal(result.pipeline, 'default');
    assert.deepEqual(result.programs[0].passes.map((p) => p.name), ['ConvertToSSA', 'InitMemRef', 'MemoryReuse', 'InsertSync']);
    assert.deepEqual(result.programs[0].passes[3].changes, [[1, 1, 1, 2]]);
    assert.equal(parsePassDiff({ programs: 'no' }), undefined);
  });
});

describe('the pass list', () => {
  it('shows the passes that changed the IR with their counts and hides the others', () => {
    const result = answer();
    assert.deepEqual(shownPasses(result), [{ program: 0, pass: 1 }, { program: 0, pass: 3 }]);
    assert.deepEqual(hiddenPasses(result.programs[0]), ['ConvertToSSA', 'MemoryReuse']);
    assert.equal(passCounts(result.programs[0].passes[3]), '+1 \u22120');
    assert.equal(diffTitle(result.programs[0].passes[3]), 'InsertSync (+1 \u22120): IR before \u2194 after');
  });

  it('steps forward and back through the shown passes and stops at either end', () => {
    const result = answer();
    assert.deepEqual(step(result, undefined, 1), { program: 0, pass: 1 });
    assert.deepEqual(step(result, undefined, -1), { program: 0, pass: 3 });
    assert.deepEqual(step(result, { program: 0, pass: 1 }, 1), { program: 0, pass: 3 });
    assert.deepEqual(step(result, { program: 0, pass: 3 }, -1), { program: 0, pass: 1 });
    assert.equal(step(result, { program: 0, pass: 3 }, 1), undefined);
    assert.equal(step(result, { program: 0, pass: 1 }, -1), undefined);
  });
});

describe('the diff sides', () => {
  it('name their stage in the path and map a line back to the kernel', () => {
    const result = answer();
    const program = result.programs[0];
    assert.equal(stagePath(program, 2), '/Demo/02 InsertSync.py');
    assert.deepEqual(stageFromPath('/Demo/02 InsertSync.py'), { program: 'Demo', stage: 2, name: 'InsertSync' });
    assert.equal(stageFor(result, '/Demo/02 InsertSync.py'), program.stages[2]);
    // after an edit the stage may sit elsewhere: found by its name
    assert.equal(stageFor(result, '/Demo/05 InsertSync.py'), program.stages[2]);
    assert.equal(stageFor(result, '/Demo/02 Gone.py'), undefined);
    assert.equal(stageFromPath('/Demo/InsertSync.py'), undefined);
    // line 1 of the InsertSync stage is the sync its pass added for the statement on line 14
    assert.deepEqual(sourceOfLine(program.stages[2], 1), range(14, 8, 39));
    assert.deepEqual(sourceOfLine(program.stages[0], 1), range(14, 8, 39));
    assert.equal(sourceOfLine(program.stages[2], 0), undefined);
  });
});
