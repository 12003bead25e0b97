import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTaskGraph } from '../src/logic/protocol';
import { layers, layoutTasks, renderTaskGraph } from '../src/logic/taskGraphView';

const at = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });

// The answer for tests/frontend/task_mistakes.py's CLEAN body (tests/server/test_lsp_task_graph.py).
const ANSWER = {
  version: 1,
  function: 'main',
  tasks: [
    { index: 0, kernel: 'gate', kind: 'submit', range: at(35, 24, 54), kernelRange: at(6, 4, 16), width: '1', taskId: 'ft', scope: 'manual', loops: [], notes: [] },
    { index: 1, kernel: 'scale', kind: 'submit', range: at(36, 22, 59), kernelRange: null, width: '1', taskId: 't1', scope: 'manual', loops: [], notes: [] },
    { index: 2, kernel: 'scale', kind: 'spmd_submit', range: at(37, 22, 40), kernelRange: null, width: '4', taskId: 't2', scope: 'manual', loops: ['range(n)'], notes: ['range(n): runs n times at run time'] },
  ],
  edges: [
    { source: 0, target: 1, kind: 'deps', label: 'ft' },
    { source: 1, target: 2, kind: 'deps', label: 't1' },
    { source: 0, target: 2, kind: 'data', label: 'flags' },
  ],
  message: '',
};
const RESOURCES = { cspSource: 'vscode-resource:', nonce: 'n0nce', scriptUri: 'media/memoryMap.js' };

describe('task graph', () => {
  it('parses the answer and drops what it cannot read', () => {
    const parsed = parseTaskGraph({ ...ANSWER, tasks: [...ANSWER.tasks, { index: 'x' }], edges: [...ANSWER.edges, { source: -1 }] });
    assert.ok(parsed !== undefined);
    assert.equal(parsed.tasks.length, 3);
    assert.equal(parsed.edges.length, 3);
    assert.equal(parsed.tasks[0]?.kernelRange?.start.line, 6);
    assert.equal(parseTaskGraph({ edges: [] }), undefined);
  });

  it('puts a task one layer below the lowest task it waits for', () => {
    const parsed = parseTaskGraph(ANSWER);
    assert.ok(parsed !== undefined);
    assert.deepEqual(layers(parsed), [0, 1, 2]);
    const { boxes } = layoutTasks(parsed);
    assert.deepEqual(boxes.map((b) => [b.x, b.y]), [[12, 12], [12, 98], [12, 184]]);
  });

  it('draws a box per task that reveals its call, and an arrow per edge', () => {
    const parsed = parseTaskGraph(ANSWER);
    assert.ok(parsed !== undefined);
    const html = renderTaskGraph(parsed, 'tasks.py', RESOURCES);
    assert.equal((html.match(/<g class="buffer task"/g) ?? []).length, 3);
    assert.ok(html.includes('data-kernel="gate" data-line="36" data-tip="submit of gate (line 36)\nTaskId ft\nmanual scope"'));
    assert.ok(html.includes('data-reveal="35,24,35,54"'));
    assert.equal((html.match(/<g class="edge deps"/g) ?? []).length, 2);
    assert.equal((html.match(/<g class="edge data"/g) ?? []).length, 1);
    assert.ok(html.includes('3 tasks, 2 deps= edges, 1 tensor edges.'));
    assert.ok(html.includes('spmd_submit × 4 → t2'));
    // a loop drawn once says how often it runs
    assert.ok(html.includes('in range(n)\nrange(n): runs n times at run time\nmanual scope"'));
    // 0 -> 2 skips a layer: it bends around task 1 instead of crossing it
    assert.equal((html.match(/<g class="edge data"[^>]*><path /g) ?? []).length, 1);
  });

  it('says why there is nothing to draw', () => {
    const html = renderTaskGraph({ version: 1, function: 'f', tasks: [], edges: [], message: 'the function launches no task' }, 'tasks.py', RESOURCES);
    assert.ok(html.includes('the function launches no task'));
    assert.ok(!html.includes('<svg'));
  });
});
