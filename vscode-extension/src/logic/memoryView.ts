/**
 * The memory map webview's HTML: the layouts of memoryLayout.ts drawn as SVG, under a
 * Content-Security-Policy that runs only the one script carrying the page's nonce.
 */
import { COLOURS, DEFAULT_LAYOUT, layoutFunction, type FunctionLayout, type LayoutOptions } from './memoryLayout';
import { proofText, proveNoOverlap } from './memoryProof';
import type { LspRange, MemoryMapResult } from './protocol';
import { formatDiagnostic } from './render';

export interface PageResources {
  /** `webview.cspSource`. */
  cspSource: string;
  /** A fresh random string per panel. */
  nonce: string;
  /** `webview.asWebviewUri(media/memoryMap.js)`. */
  scriptUri: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** `data-reveal` holds the range as four numbers; the script posts them back on a click. */
export function encodeRange(range: LspRange): string {
  return [range.start.line, range.start.character, range.end.line, range.end.character].join(',');
}

export function decodeRange(text: unknown): LspRange | undefined {
  if (typeof text !== 'string') {
    return undefined;
  }
  const parts = text.split(',').map(Number);
  if (parts.length !== 4 || parts.some((n) => !Number.isInteger(n) || n < 0)) {
    return undefined;
  }
  const [startLine, startCharacter, endLine, endCharacter] = parts as [number, number, number, number];
  return { start: { line: startLine, character: startCharacter }, end: { line: endLine, character: endCharacter } };
}

const round = (n: number): string => String(Math.round(n * 10) / 10);
const CHAR_WIDTH = 7;
const LABEL_HEIGHT = 13;

/** What the user chose in the page: the scale, the spaces shown, the pinned buffer. */
export interface MemoryViewState {
  scaleTo: 'capacity' | 'used';
  hidden: string[];
  /** `function/buffer` of the pinned buffer, whose every mention the kernel highlights. */
  pinned: string | undefined;
}

export const DEFAULT_VIEW: MemoryViewState = { scaleTo: 'capacity', hidden: [], pinned: undefined };

function svgFor(layout: FunctionLayout, marked: { pinned?: string; conflict: string[] } = { conflict: [] }): string {
  const parts: string[] = [];
  const axisY = layout.lanes.length > 0 ? layout.lanes[0].y - 10 : 12;
  parts.push(
    `<text class="axis" x="${layout.plotLeft}" y="${round(axisY)}">statement 0</text>`,
    `<text class="axis end" x="${layout.plotRight}" y="${round(axisY)}">${layout.statements} →</text>`,
  );
  for (const lane of layout.lanes) {
    const bottom = lane.y + lane.height;
    const laneClass = lane.overflow ? 'lane overflow' : 'lane';
    parts.push(
      `<g class="${laneClass}" data-space="${escapeHtml(lane.space)}">`,
      `<rect class="plot" x="${layout.plotLeft}" y="${round(lane.y)}" width="${round(layout.plotRight - layout.plotLeft)}" height="${round(lane.height)}"/>`,
      `<text class="title" x="8" y="${round(lane.y + 14)}">${escapeHtml(lane.title)}</text>`,
      `<text class="detail" x="8" y="${round(lane.y + 30)}">${escapeHtml(lane.detail)}</text>`,
      `<text class="tick" x="${layout.plotLeft - 4}" y="${round(bottom)}">0x0000</text>`,
    );
    if (lane.capacityY !== null) {
      parts.push(
        `<line class="capacity" x1="${layout.plotLeft}" x2="${layout.plotRight}" y1="${round(lane.capacityY)}" y2="${round(lane.capacityY)}"/>`,
        `<text class="tick" x="${layout.plotLeft - 4}" y="${round(lane.capacityY + 4)}">capacity</text>`,
      );
    }
    parts.push('</g>');
  }
  for (const box of layout.boxes) {
    const classes = [
      'buffer',
      `c${box.colour % COLOURS}`,
      ...(box.overflow ? ['overflow'] : []),
      ...(marked.conflict.includes(box.name) ? ['conflict'] : []),
      ...(marked.pinned === box.name ? ['pinned'] : []),
    ].join(' ');
    const tip = escapeHtml(box.tooltip.join('\n'));
    const pin = `${layout.name}/${box.name}`;
    parts.push(
      `<g class="${classes}" tabindex="0" role="button" aria-label="${tip}" data-name="${escapeHtml(box.name)}" data-space="${escapeHtml(box.space)}" data-tip="${tip}" data-reveal="${encodeRange(box.reveal)}" data-pin="${escapeHtml(pin)}">`,
      `<rect x="${round(box.x)}" y="${round(box.y)}" width="${round(Math.max(box.width, 1))}" height="${round(box.height)}"/>`,
    );
    if (box.extent !== null) {
      parts.push(`<rect class="extent" x="${round(box.x)}" y="${round(box.extent.y)}" width="${round(Math.max(box.width, 1))}" height="${round(box.extent.height)}"/>`);
    }
    if (box.width >= box.name.length * CHAR_WIDTH + 6 && box.height >= LABEL_HEIGHT) {
      parts.push(`<text x="${round(box.x + 4)}" y="${round(box.y + Math.min(box.height / 2 + 4, box.height - 3))}">${escapeHtml(box.name)}</text>`);
    }
    parts.push('</g>');
  }
  // Drawn at the panel's width (the script reports it), so text keeps its size.
  const size = `width="${layout.width}" height="${round(layout.height)}" viewBox="0 0 ${layout.width} ${round(layout.height)}"`;
  return `<svg xmlns="http://www.w3.org/2000/svg" class="map" ${size}>${parts.join('')}</svg>`;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 16px 16px; }
h2 { font-size: 1.1em; margin: 18px 0 4px; }
h2 a { color: var(--vscode-textLink-foreground); cursor: pointer; text-decoration: none; }
.summary { color: var(--vscode-descriptionForeground); margin: 0 0 4px; }
.note { color: var(--vscode-editorWarning-foreground, #cca700); margin: 8px 0 4px; }
.diagnostics { font-family: var(--vscode-editor-font-family); white-space: pre-wrap; color: var(--vscode-errorForeground); }
svg.map { display: block; }
svg text { fill: var(--vscode-foreground); font-size: 11px; font-family: var(--vscode-font-family); }
svg .axis, svg .tick, svg .detail { fill: var(--vscode-descriptionForeground); }
svg .axis.end, svg .tick { text-anchor: end; }
svg .title { font-weight: bold; }
svg .plot { fill: var(--vscode-editorWidget-background, transparent); stroke: var(--vscode-editorWidget-border, #8884); }
svg .capacity { stroke: var(--vscode-editorWarning-foreground, #cca700); stroke-width: 1.5; stroke-dasharray: 6 3; }
svg .lane.overflow .title, svg .lane.overflow .detail { fill: var(--vscode-errorForeground, #f14c4c); }
svg .buffer { cursor: pointer; }
svg .buffer rect { stroke: var(--vscode-editor-background, #000); stroke-width: 1; fill-opacity: 0.85; }
svg .buffer:hover rect, svg .buffer:focus rect { stroke: var(--vscode-focusBorder, #fff); stroke-width: 2; fill-opacity: 1; }
svg .buffer text { fill: #fff; pointer-events: none; }
svg .c0 rect { fill: #3b78c2; } svg .c1 rect { fill: #2e9a6f; } svg .c2 rect { fill: #a35fc2; } svg .c3 rect { fill: #c28a2e; }
svg .c4 rect { fill: #2f97a8; } svg .c5 rect { fill: #7d8f2f; } svg .c6 rect { fill: #c25f8f; } svg .c7 rect { fill: #5f6fc2; }
svg .buffer.overflow rect { fill: #d13438; stroke: #ff8080; }
svg .buffer rect.extent { fill: none; stroke: var(--vscode-foreground, #ccc); stroke-dasharray: 3 2; stroke-width: 1; }
svg .buffer.conflict rect { stroke: var(--vscode-errorForeground, #f14c4c); stroke-width: 3; }
svg .buffer.pinned rect { stroke: var(--vscode-focusBorder, #fff); stroke-width: 3; fill-opacity: 1; }
.proof.ok { color: var(--vscode-testing-iconPassed, #73c991); margin: 0 0 4px; }
.proof.bad { color: var(--vscode-errorForeground, #f14c4c); font-weight: bold; margin: 0 0 4px; }
.controls { margin: 10px 0 0; display: flex; gap: 4px; align-items: center; flex-wrap: wrap; }
.controls span { color: var(--vscode-descriptionForeground); margin: 0 4px 0 10px; }
.controls button { font: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: 1px solid var(--vscode-button-border, transparent); padding: 1px 8px; cursor: pointer; }
.controls button[aria-pressed="true"] { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
#tip { position: fixed; display: none; pointer-events: none; white-space: pre; padding: 4px 8px; z-index: 10;
  background: var(--vscode-editorHoverWidget-background); color: var(--vscode-editorHoverWidget-foreground);
  border: 1px solid var(--vscode-editorHoverWidget-border); font-family: var(--vscode-editor-font-family); }
`;

/** A page under the Content-Security-Policy (the timeline view draws in it too). */
export function page(resources: PageResources, title: string, body: string): string {
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${resources.nonce}'`,
    `script-src 'nonce-${resources.nonce}'`,
    `img-src ${resources.cspSource}`,
  ].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="UTF-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1.0">',
    `<title>${escapeHtml(title)}</title>`,
    `<style nonce="${resources.nonce}">${STYLE}</style>`,
    '</head><body>',
    body,
    '<div id="tip" role="tooltip"></div>',
    `<script nonce="${resources.nonce}" src="${escapeHtml(resources.scriptUri)}"></script>`,
    '</body></html>',
  ].join('\n');
}

function toggle(view: string, value: string, label: string, pressed: boolean): string {
  return `<button data-view="${view}" data-value="${escapeHtml(value)}" aria-pressed="${pressed}">${escapeHtml(label)}</button>`;
}

/** The scale and per-space toggles; a click posts `{command: 'view', view, value}`. */
function controls(result: MemoryMapResult, state: MemoryViewState): string {
  const spaces = [...new Set(result.functions.flatMap((fn) => [...fn.spaces.map((s) => s.space), ...fn.buffers.map((b) => b.space)]))];
  return [
    '<div class="controls">',
    '<span>Scale</span>',
    toggle('scale', 'capacity', 'capacity', state.scaleTo === 'capacity'),
    toggle('scale', 'used', 'used', state.scaleTo === 'used'),
    '<span>Spaces</span>',
    ...spaces.map((space) => toggle('space', space, space, !state.hidden.includes(space))),
    '</div>',
  ].join('');
}

/** The page for an answer of `ptols/memoryMap`. */
export function renderMemoryMap(
  result: MemoryMapResult,
  sourceName: string,
  resources: PageResources,
  options: LayoutOptions = DEFAULT_LAYOUT,
  state: MemoryViewState = DEFAULT_VIEW,
): string {
  const sections: string[] = [];
  if (result.functions.length > 0) {
    sections.push(controls(result, state));
  }
  if (result.note !== undefined && result.note !== '') {
    sections.push(`<p class="note">note: ${escapeHtml(result.note)}</p>`);
  }
  if (result.diagnostics.length > 0) {
    const lines = result.diagnostics.map((d) => escapeHtml(formatDiagnostic(sourceName, d)));
    sections.push(`<div class="diagnostics">${lines.join('\n')}</div>`);
  }
  if (result.functions.length === 0) {
    const why = result.diagnostics.some((d) => d.severity === 1)
      ? 'it does not compile, so no memory was allocated.'
      : 'no function with buffers to allocate.';
    sections.push(`<p class="summary">No memory map for ${escapeHtml(sourceName)}: ${why}</p>`);
  }
  for (const fn of result.functions) {
    const layout = layoutFunction(fn, { ...options, scaleTo: state.scaleTo, hidden: state.hidden });
    const count = `${fn.buffers.length} buffer${fn.buffers.length === 1 ? '' : 's'}`;
    const proof = proveNoOverlap(fn);
    const conflict = proof.overlap === undefined ? [] : [proof.overlap.a.name, proof.overlap.b.name];
    const pinned = state.pinned?.startsWith(`${fn.name}/`) === true ? state.pinned.slice(fn.name.length + 1) : undefined;
    sections.push(
      `<section class="function" data-function="${escapeHtml(fn.name)}">`,
      `<h2><a data-reveal="${encodeRange(fn.range)}" title="Show the function">${escapeHtml(fn.name)}</a></h2>`,
      `<p class="summary">${count} over ${layout.statements} statements. Hover a box for details, click it for its first use and to pin it (every mention highlighted in the kernel).</p>`,
      `<p class="proof ${proof.overlap === undefined ? 'ok' : 'bad'}">${escapeHtml(proofText(proof))}</p>`,
      svgFor(layout, { ...(pinned === undefined ? {} : { pinned }), conflict }),
      '</section>',
    );
  }
  return page(resources, `Memory map of ${sourceName}`, sections.join('\n'));
}

/** The layout for a panel `width` pixels wide (the body's padding taken off), within reason. */
export function layoutForWidth(width: number | undefined): LayoutOptions {
  if (width === undefined || !Number.isFinite(width)) {
    return DEFAULT_LAYOUT;
  }
  return { ...DEFAULT_LAYOUT, width: Math.round(Math.min(Math.max(width - 40, 480), 2400)) };
}

/** Shown while the first answer is awaited, or when there is none. */
export function renderMessage(message: string, resources: PageResources): string {
  return page(resources, 'Memory map', `<p class="summary">${escapeHtml(message)}</p>`);
}
