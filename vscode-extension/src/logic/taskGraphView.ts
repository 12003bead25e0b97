/**
 * The task-graph webview's HTML (#28): a box per task in layers (a task sits one layer below
 * the lowest task it waits for), an arrow per edge (solid: a `deps=` TaskId, dashed: a tensor
 * the task reads), a dashed box around the tasks of each loop drawn once, labelled with the
 * loop and how often it runs (as `ptoc graph`'s DOT draws a subgraph cluster). Same page as the memory map (same Content-Security-Policy and script): a
 * hover box, a click on a task posts its call's range to reveal.
 */
import { encodeRange, escapeHtml, page, type PageResources } from './memoryView';
import type { TaskGraphCluster, TaskGraphResult, TaskGraphTask } from './protocol';

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

/** A loop drawn once: a box around its tasks (and its inner loops' boxes), its label on top. */
export interface ClusterBox {
  cluster: TaskGraphCluster;
  x: number;
  y: number;
  width: number;
  height: number;
  depth: number; // how many boxes hold it (0: outermost)
}

export interface TaskLayout {
  boxes: TaskBox[];
  clusters: ClusterBox[];
  width: number;
  height: number;
}

/** Room for a cluster's two label lines (its loop, its note) above its first tasks. */
export const CLUSTER_LABEL = 30;
/** A cluster box's margin around its contents (sides and bottom). */
export const CLUSTER_PAD = 8;
const CHAR_WIDTH = 7; // at most, in the 11px label font

/**
 * The loops drawn once, as a tree: each cluster's inner clusters and direct tasks (the tasks
 * whose innermost cluster it is), those of no cluster under the root (-1). A cluster of an
 * unknown parent (or in a cycle of parents) hangs from the root; one with no task inside is left out.
 */
class ClusterTree {
  readonly byIndex = new Map<number, TaskGraphCluster>();
  readonly children = new Map<number, number[]>();
  readonly direct = new Map<number, number[]>(); // a cluster -> positions of its direct tasks
  readonly live = new Set<number>();

  constructor(result: TaskGraphResult) {
    for (const cluster of result.clusters) {
      this.byIndex.set(cluster.index, cluster);
    }
    for (const cluster of result.clusters) {
      const parent = this.parentOf(cluster.index);
      this.children.set(parent, [...(this.children.get(parent) ?? []), cluster.index]);
    }
    result.tasks.forEach((task, i) => {
      const owner = task.cluster !== null && this.byIndex.has(task.cluster) ? task.cluster : -1;
      this.direct.set(owner, [...(this.direct.get(owner) ?? []), i]);
      for (let c = owner; c >= 0 && !this.live.has(c); c = this.parentOf(c)) {
        this.live.add(c);
      }
    });
  }

  /** The cluster's parent, or -1 (none, unknown, or a cycle). */
  parentOf(index: number): number {
    const parent = this.byIndex.get(index)?.parent ?? null;
    if (parent === null || !this.byIndex.has(parent) || this.chain(parent).includes(index)) {
      return -1;
    }
    return parent;
  }

  /** The cluster and the clusters around it, innermost first (stops at a repeated one). */
  chain(index: number): number[] {
    const found: number[] = [];
    let at: number | null = index;
    while (at !== null && at >= 0 && this.byIndex.has(at) && !found.includes(at)) {
      found.push(at);
      at = this.byIndex.get(at)?.parent ?? null;
    }
    return found;
  }

  liveChildren(index: number): number[] {
    return (this.children.get(index) ?? []).filter((c) => this.live.has(c));
  }
}

/**
 * Tasks in layers; each loop drawn once gets columns of its own (its direct tasks, then its
 * inner loops' columns), so that its box holds its tasks and no other, and room above its first
 * layer for its label and below its last for its margin.
 */
export function layoutTasks(result: TaskGraphResult): TaskLayout {
  const layer = layers(result);
  const tree = new ClusterTree(result);
  const x = result.tasks.map(() => MARGIN);
  const widths = new Map<number, number>();
  const origins = new Map<number, number>();

  const place = (index: number, x0: number): number => {
    origins.set(index, x0);
    const pad = index < 0 ? 0 : CLUSTER_PAD;
    let cursor = x0 + pad;
    let pieces = 0;
    const perLayer = new Map<number, number>();
    for (const i of tree.direct.get(index) ?? []) {
      const l = layer[i] ?? 0;
      const column = perLayer.get(l) ?? 0;
      perLayer.set(l, column + 1);
      x[i] = cursor + column * (BOX_WIDTH + GAP_X);
    }
    const columns = Math.max(0, ...perLayer.values());
    if (columns > 0) {
      cursor += columns * (BOX_WIDTH + GAP_X);
      pieces += 1;
    }
    for (const child of tree.liveChildren(index)) {
      cursor += place(child, cursor) + GAP_X;
      pieces += 1;
    }
    const content = pieces > 0 ? cursor - GAP_X - (x0 + pad) : 0;
    const cluster = tree.byIndex.get(index);
    const label = cluster === undefined ? 0 : Math.max(cluster.label.length, cluster.note.length) * CHAR_WIDTH;
    const width = Math.max(content, label) + 2 * pad;
    widths.set(index, width);
    return width;
  };
  const content = Math.max(BOX_WIDTH, place(-1, MARGIN));

  // Each live cluster's layers, and how many boxes open at its first layer (itself and the
  // inner ones opening there too) and close at its last.
  const span = new Map<number, [number, number]>();
  const spanOf = (index: number): [number, number] => {
    const known = span.get(index);
    if (known !== undefined) {
      return known;
    }
    const own = (tree.direct.get(index) ?? []).map((i) => layer[i] ?? 0);
    const inner = tree.liveChildren(index).map(spanOf);
    const found: [number, number] = [Math.min(...own, ...inner.map((s) => s[0])), Math.max(...own, ...inner.map((s) => s[1]))];
    span.set(index, found);
    return found;
  };
  const opens = (index: number): number =>
    1 + Math.max(0, ...tree.liveChildren(index).filter((c) => spanOf(c)[0] === spanOf(index)[0]).map(opens));
  const closes = (index: number): number =>
    1 + Math.max(0, ...tree.liveChildren(index).filter((c) => spanOf(c)[1] === spanOf(index)[1]).map(closes));
  const rows = Math.max(1, ...layer.map((l) => l + 1));
  const opening = new Array<number>(rows).fill(0);
  const closing = new Array<number>(rows).fill(0);
  for (const index of tree.live) {
    const [first, last] = spanOf(index);
    opening[first] = Math.max(opening[first] ?? 0, opens(index));
    closing[last] = Math.max(closing[last] ?? 0, closes(index));
  }
  const top: number[] = [];
  for (let l = 0; l < rows; l++) {
    const previous = l === 0 ? MARGIN : (top[l - 1] ?? 0) + BOX_HEIGHT + GAP_Y + (closing[l - 1] ?? 0) * CLUSTER_PAD;
    top.push(previous + (opening[l] ?? 0) * CLUSTER_LABEL);
  }

  const boxes = result.tasks.map((task, i) => {
    const l = layer[i] ?? 0;
    return { task, layer: l, x: x[i] ?? MARGIN, y: top[l] ?? MARGIN };
  });
  const clusters: ClusterBox[] = [];
  const frame = (index: number, depth: number): void => {
    const cluster = tree.byIndex.get(index);
    const [first, last] = spanOf(index);
    if (cluster !== undefined) {
      const y = (top[first] ?? 0) - opens(index) * CLUSTER_LABEL;
      const bottom = (top[last] ?? 0) + BOX_HEIGHT + closes(index) * CLUSTER_PAD;
      clusters.push({ cluster, x: origins.get(index) ?? 0, y, width: widths.get(index) ?? 0, height: bottom - y, depth });
    }
    for (const child of tree.liveChildren(index)) {
      frame(child, depth + 1);
    }
  };
  for (const outermost of tree.liveChildren(-1)) {
    frame(outermost, 0);
  }
  const lastRow = rows - 1;
  const height = (top[lastRow] ?? MARGIN) + BOX_HEIGHT + (closing[lastRow] ?? 0) * CLUSTER_PAD + MARGIN;
  return { boxes, clusters, width: 2 * MARGIN + content + GAP_X, height };
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

/** A loop drawn once: its box (behind its tasks), its loop and how often it runs on top. */
export function clusterSvg(box: ClusterBox): string {
  const { cluster } = box;
  return [
    `<g class="cluster" data-cluster="${cluster.index}">`,
    `<rect x="${box.x}" y="${box.y}" width="${box.width}" height="${box.height}" rx="6"/>`,
    `<text class="cluster-label" x="${box.x + 6}" y="${box.y + 13}">${escapeHtml(cluster.label)}</text>`,
    `<text class="detail" x="${box.x + 6}" y="${box.y + 26}">${escapeHtml(cluster.note)}</text>`,
    '</g>',
  ].join('');
}

function svgFor(result: TaskGraphResult): string {
  const { boxes, clusters, width, height } = layoutTasks(result);
  const at = new Map(boxes.map((b) => [b.task.index, b]));
  const parts: string[] = [
    '<defs><marker id="head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">',
    '<path class="head" d="M0,0 L8,4 L0,8 z"/></marker></defs>',
    ...clusters.map(clusterSvg),
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
svg .cluster rect { fill: var(--vscode-editorWidget-background, transparent); fill-opacity: 0.5; stroke: var(--vscode-editorWidget-border, #8888); stroke-dasharray: 5 3; }
svg .cluster-label { font-weight: bold; }
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
