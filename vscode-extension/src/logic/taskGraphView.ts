/**
 * The task-graph webview's HTML (#28): a box per task in layers (a task sits one layer below
 * the lowest task it waits for), an arrow per edge (solid: a `deps=` TaskId, dashed: a tensor
 * the task reads). Same page as the memory map (same Content-Security-Policy and script): a
 * hover box, a click on a task posts its call's range to reveal.
 */
import { encodeRange, escapeHtml, page, type PageResources } from './memoryView';
import type { TaskGraphResult, TaskGraphTask } from './protocol';

export interface TaskBox {
  task: TaskGraphTask;
  x: number;
  y: number;
  layer: number;
}

export const BOX_WIDTH = 180;
export const BOX_HEIGHT = 46;
const GAP_X = 24;
const GAP_Y = 40;
const MARGIN = 12;

/** Each task's layer: 0 for a task waiting on nothing, else one below its lowest producer. */
export function layers(result: TaskGraphResult): number[] {
  const layer = result.tasks.map(() => 0);
  const position = new Map(result.tasks.map((t, i) => [t.index, i]));
  // Edges run from earlier to later tasks (program order); a pass in order settles them.
  for (let i = 0; i < result.tasks.length; i++) {
    for (const edge of result.edges) {
      const source = position.get(edge.source);
      const target = position.get(edge.target);
      if (source !== undefined && target === i && source < i) {
        layer[i] = Math.max(layer[i] ?? 0, (layer[source] ?? 0) + 1);
      }
    }
  }
  return layer;
}

export function layoutTasks(result: TaskGraphResult): { boxes: TaskBox[]; width: number; height: number } {
  const layer = layers(result);
  const perLayer = new Map<number, number>();
  const boxes = result.tasks.map((task, i) => {
    const l = layer[i] ?? 0;
    const column = perLayer.get(l) ?? 0;
    perLayer.set(l, column + 1);
    return { task, layer: l, x: MARGIN + column * (BOX_WIDTH + GAP_X), y: MARGIN + l * (BOX_HEIGHT + GAP_Y) };
  });
  const columns = Math.max(1, ...perLayer.values());
  const rows = Math.max(1, ...layer.map((l) => l + 1));
  return { boxes, width: 2 * MARGIN + columns * BOX_WIDTH + (columns - 1) * GAP_X + GAP_X, height: 2 * MARGIN + rows * BOX_HEIGHT + (rows - 1) * GAP_Y };
}

function tooltip(task: TaskGraphTask): string {
  const lines = [`${task.kind} of ${task.kernel} (line ${task.range.start.line + 1})`];
  if (task.width !== '1') {
    lines.push(`${task.width} SPMD blocks`);
  }
  if (task.taskId !== '') {
    lines.push(`TaskId ${task.taskId}`);
  }
  if (task.loops.length > 0) {
    lines.push(`in ${task.loops.join(' / ')}`);
  }
  lines.push(...task.notes);
  if (task.scope !== '') {
    lines.push(`${task.scope} scope`);
  }
  return lines.join('\n');
}

/** A straight arrow to the next layer; one skipping layers bends out to the right of the boxes between. */
function edgePath(from: TaskBox, to: TaskBox): string {
  const [x1, y1, x2, y2] = [from.x + BOX_WIDTH / 2, from.y + BOX_HEIGHT, to.x + BOX_WIDTH / 2, to.y];
  if (to.layer - from.layer <= 1) {
    return `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" marker-end="url(#head)"/>`;
  }
  const bend = Math.max(from.x, to.x) + BOX_WIDTH + GAP_X / 2;
  return `<path d="M${x1},${y1} C${bend},${y1 + GAP_Y} ${bend},${y2 - GAP_Y} ${x2},${y2}" fill="none" marker-end="url(#head)"/>`;
}

function svgFor(result: TaskGraphResult): string {
  const { boxes, width, height } = layoutTasks(result);
  const at = new Map(boxes.map((b) => [b.task.index, b]));
  const parts: string[] = [
    '<defs><marker id="head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">',
    '<path class="head" d="M0,0 L8,4 L0,8 z"/></marker></defs>',
  ];
  for (const edge of result.edges) {
    const from = at.get(edge.source);
    const to = at.get(edge.target);
    if (from === undefined || to === undefined) {
      continue;
    }
    parts.push(
      `<g class="edge ${edge.kind === 'deps' ? 'deps' : 'data'}" data-source="${edge.source}" data-target="${edge.target}" data-tip="${escapeHtml(`${edge.kind}: ${edge.label}`)}">`,
      edgePath(from, to),
      '</g>',
    );
  }
  for (const box of boxes) {
    const task = box.task;
    const tip = escapeHtml(tooltip(task));
    const second = `${task.kind}${task.width !== '1' ? ` × ${task.width}` : ''}${task.taskId !== '' ? ` → ${task.taskId}` : ''}`;
    parts.push(
      `<g class="buffer task" tabindex="0" role="button" aria-label="${tip}" data-index="${task.index}" data-kernel="${escapeHtml(task.kernel)}" data-line="${task.range.start.line + 1}" data-tip="${tip}" data-reveal="${encodeRange(task.range)}">`,
      `<rect x="${box.x}" y="${box.y}" width="${BOX_WIDTH}" height="${BOX_HEIGHT}" rx="4"/>`,
      `<text x="${box.x + 6}" y="${box.y + 18}">${escapeHtml(task.kernel)}</text>`,
      `<text class="detail" x="${box.x + 6}" y="${box.y + 36}">${escapeHtml(second)}</text>`,
      '</g>',
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" class="map taskgraph" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`;
}

const STYLE = `
svg .edge line, svg .edge path { stroke: var(--vscode-textLink-foreground, #3794ff); stroke-width: 1.5; }
svg .edge.data line, svg .edge.data path { stroke-dasharray: 4 3; }
svg .head { fill: var(--vscode-textLink-foreground, #3794ff); }
svg .task { cursor: pointer; }
`;

/** The page for an answer of `ptols/taskGraph`. */
export function renderTaskGraph(result: TaskGraphResult, sourceName: string, resources: PageResources): string {
  const sections = [`<style nonce="${resources.nonce}">${STYLE}</style>`];
  sections.push(`<h2>${escapeHtml(result.function)}</h2>`);
  if (result.message !== '') {
    sections.push(`<p class="summary">${escapeHtml(result.message)}</p>`);
  } else {
    const deps = result.edges.filter((e) => e.kind === 'deps').length;
    sections.push(
      `<p class="summary">${result.tasks.length} tasks, ${deps} deps= edges, ${result.edges.length - deps} tensor edges. Click a task for its call.</p>`,
      `<section class="graph">${svgFor(result)}</section>`,
    );
  }
  return page(resources, `Task graph of ${sourceName}`, sections.join('\n'));
}
