import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTaskGraph } from '../src/logic/protocol';
import { BOX_HEIGHT, BOX_WIDTH, clusterSvg, layers, layoutTasks, renderTaskGraph } from '../src/logic/taskGraphView';

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
    const html = renderTaskGraph({ version: 1, function: 'f', tasks: [], edges: [], message: 'the function launches no task', clusters: [] }, 'tasks.py', RESOURCES);
    assert.ok(html.includes('the function launches no task'));
    assert.ok(!html.includes('<svg'));
  });

  it('draws a loop drawn once as a box around its tasks, its loop and note on top', () => {
    // prologue -> [range(batch_cfg): a -> b -> [parallel(heads): c]] -> epilogue
    const task = (index: number, kernel: string, cluster: number | null) => ({
      index, kernel, kind: 'call', range: at(10 + index, 4, 20), kernelRange: null, width: '1', taskId: '', scope: '', loops: [], notes: [], cluster,
    });
    const parsed = parseTaskGraph({
      version: 1,
      function: 'main',
      tasks: [task(0, 'prologue', null), task(1, 'a', 0), task(2, 'b', 0), task(3, 'c', 1), task(4, 'epilogue', null)],
      edges: [0, 1, 2, 3].map((i) => ({ source: i, target: i + 1, kind: 'data', label: 'x' })),
      message: '',
      clusters: [
        { index: 0, label: 'range(batch_cfg)', note: 'runs batch_cfg times at run time', parent: null },
        { index: 1, label: 'parallel(heads)', note: 'runs heads times at run time', parent: 0 },
      ],
    });
    assert.ok(parsed !== undefined);
    assert.deepEqual(parsed.tasks.map((t) => t.cluster), [null, 0, 0, 1, null]);
    const layout = layoutTasks(parsed);
    // the loops' tasks in columns of their own, each box's label above its first tasks, its
    // margin below its last
    assert.deepEqual(layout.boxes.map((b) => [b.x, b.y]), [[12, 12], [224, 128], [224, 214], [436, 330], [12, 432]]);
    assert.deepEqual(
      layout.clusters.map((c) => [c.cluster.index, c.x, c.y, c.width, c.height, c.depth]),
      [[0, 216, 98, 432, 294, 0], [1, 428, 300, 212, 84, 1]],
    );
    assert.deepEqual([layout.width, layout.height], [684, 490]);
    // a box holds its tasks and inner boxes, and no other task
    const inside = (b: { x: number; y: number }, c: { x: number; y: number; width: number; height: number }) =>
      b.x >= c.x && b.y >= c.y && b.x + BOX_WIDTH <= c.x + c.width && b.y + BOX_HEIGHT <= c.y + c.height;
    const [outer, inner] = layout.clusters;
    assert.ok(outer !== undefined && inner !== undefined);
    assert.deepEqual(layout.boxes.map((b) => inside(b, outer)), [false, true, true, true, false]);
    assert.deepEqual(layout.boxes.map((b) => inside(b, inner)), [false, false, false, true, false]);
    assert.ok(inner.x >= outer.x && inner.y >= outer.y + 30 && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height);

    assert.equal(
      clusterSvg(outer),
      '<g class="cluster" data-cluster="0"><rect x="216" y="98" width="432" height="294" rx="6"/>' +
        '<text class="cluster-label" x="222" y="111">range(batch_cfg)</text>' +
        '<text class="detail" x="222" y="124">runs batch_cfg times at run time</text></g>',
    );
    const html = renderTaskGraph(parsed, 'tasks.py', RESOURCES);
    // drawn behind the tasks, outer box first
    assert.equal((html.match(/<g class="cluster"/g) ?? []).length, 2);
    assert.ok(html.indexOf('data-cluster="0"') < html.indexOf('data-cluster="1"'));
    assert.ok(html.indexOf('data-cluster="1"') < html.indexOf('<g class="buffer task"'));
    assert.ok(html.includes('<svg xmlns="http://www.w3.org/2000/svg" class="map taskgraph" width="684" height="490"'));
  });

  it('gives two loops of one label a box each, and leaves out a loop with no task', () => {
    // the phase-fence stages: one loop per stage, the same words
    const same = { label: 'parallel(branches)', note: 'runs branches times at run time', parent: null };
    const parsed = parseTaskGraph({
      ...ANSWER,
      tasks: ANSWER.tasks.map((t, i) => ({ ...t, cluster: i < 2 ? i : null })),
      clusters: [0, 1, 2].map((index) => ({ index, ...same })),
    });
    assert.ok(parsed !== undefined);
    const layout = layoutTasks(parsed);
    assert.deepEqual(layout.clusters.map((c) => c.cluster.index), [0, 1]);
    const [first, second] = layout.clusters;
    assert.ok(first !== undefined && second !== undefined);
    assert.ok(first.x + first.width < second.x, 'side by side, not one box');
  });

  it('draws loops of unknown or circular parents as outermost ones', () => {
    const parsed = parseTaskGraph({
      ...ANSWER,
      tasks: ANSWER.tasks.map((t, i) => ({ ...t, cluster: [0, 2, null][i] })),
      clusters: [
        { index: 0, label: 'while', note: 'runs until its condition fails', parent: 1 },
        { index: 1, label: 'while', note: 'runs until its condition fails', parent: 0 },
        { index: 2, label: 'range(n)', note: 'runs n times at run time', parent: 7 },
      ],
    });
    assert.ok(parsed !== undefined);
    const layout = layoutTasks(parsed);
    assert.deepEqual(layout.clusters.map((c) => [c.cluster.index, c.depth]), [[0, 0], [2, 0]]);
    assert.ok(layout.clusters.every((c) => Number.isFinite(c.y) && c.height > 0));
  });
});
