/**
 * The timeline webview's HTML: the layouts of timelineLayout.ts drawn as SVG, in the memory
 * map's page (same Content-Security-Policy, same script: a hover box, a click posts the
 * element's `data-reveal` range, the page reports its width).
 */
import { encodeRange, escapeHtml, page, type PageResources } from './memoryView';
import type { FunctionTimeline, TimelineResult } from './protocol';
import { cycles, layoutTimeline, type TimelineLayout, type TimelineLayoutOptions, DEFAULT_TIMELINE_LAYOUT } from './timelineLayout';

const round = (n: number): string => String(Math.round(n * 10) / 10);
const CHAR_WIDTH = 7;

/** A click anywhere on source line `line` (0-based) reveals the line's start. */
const lineRange = (line: number): string => encodeRange({ start: { line, character: 0 }, end: { line, character: 0 } });

function svgFor(layout: TimelineLayout): string {
  const parts: string[] = [
    '<defs><marker id="head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">',
    '<path class="head" d="M0,0 L8,4 L0,8 z"/></marker></defs>',
  ];
  for (const tick of layout.ticks) {
    parts.push(
      `<line class="tick" x1="${round(tick.x)}" x2="${round(tick.x)}" y1="14" y2="${round(layout.height - 8)}"/>`,
      `<text class="axis" x="${round(tick.x)}" y="11">${tick.label}</text>`,
    );
  }
  for (const lane of layout.lanes) {
    const classes = lane.bottleneck ? 'pipe bottleneck' : 'pipe';
    parts.push(
      `<g class="${classes}" data-pipe="${escapeHtml(lane.pipe)}">`,
      `<rect class="plot" x="${layout.plotLeft}" y="${round(lane.y)}" width="${round(layout.plotRight - layout.plotLeft)}" height="${round(lane.height)}"/>`,
      `<text class="title" x="8" y="${round(lane.y + 14)}">${escapeHtml(lane.title)}${lane.bottleneck ? ' (bottleneck)' : ''}</text>`,
      `<text class="detail" x="8" y="${round(lane.y + 28)}">${escapeHtml(lane.detail)}</text>`,
      '</g>',
    );
  }
  for (const box of layout.boxes) {
    const classes = ['buffer', 'instruction', `c${box.colour}`, ...(box.critical ? ['critical'] : [])].join(' ');
    const tip = escapeHtml(box.tooltip.join('\n'));
    parts.push(
      `<g class="${classes}" tabindex="0" role="button" aria-label="${tip}" data-index="${box.index}" data-name="${escapeHtml(box.name)}" data-pipe="${escapeHtml(box.pipe)}" data-line="${box.line + 1}" data-tip="${tip}" data-reveal="${lineRange(box.line)}">`,
      `<rect x="${round(box.x)}" y="${round(box.y)}" width="${round(box.width)}" height="${round(box.height)}"/>`,
    );
    if (box.width >= box.name.length * CHAR_WIDTH + 6) {
      parts.push(`<text x="${round(box.x + 4)}" y="${round(box.y + box.height / 2 + 4)}">${escapeHtml(box.name)}</text>`);
    }
    parts.push('</g>');
  }
  for (const arrow of layout.arrows) {
    const tip = escapeHtml(arrow.tooltip);
    parts.push(
      `<g class="arrow" data-tip="${tip}" data-reveal="${lineRange(arrow.line)}">`,
      `<line x1="${round(arrow.x1)}" y1="${round(arrow.y1)}" x2="${round(arrow.x2)}" y2="${round(arrow.y2)}" marker-end="url(#head)"/>`,
      '</g>',
    );
  }
  const size = `width="${layout.width}" height="${round(layout.height)}" viewBox="0 0 ${layout.width} ${round(layout.height)}"`;
  return `<svg xmlns="http://www.w3.org/2000/svg" class="map timeline" ${size}>${parts.join('')}</svg>`;
}

// Beside the memory map's style (boxes, tooltips): the timeline's own marks.
const STYLE = `
svg .tick { stroke: var(--vscode-editorWidget-border, #8884); stroke-dasharray: 2 3; }
svg .axis { text-anchor: middle; }
svg .pipe.bottleneck .title { fill: var(--vscode-editorWarning-foreground, #cca700); }
svg .instruction.critical rect { stroke: var(--vscode-editorWarning-foreground, #cca700); stroke-width: 2; }
svg .arrow { cursor: pointer; }
svg .arrow line { stroke: var(--vscode-textLink-foreground, #3794ff); stroke-width: 1.5; }
svg .arrow:hover line { stroke-width: 3; }
svg .head { fill: var(--vscode-textLink-foreground, #3794ff); }
.notes { color: var(--vscode-descriptionForeground); font-style: italic; }
`;

/** `≈ 1,686 cycles (0.91 µs at 1.85 GHz) · bottleneck MTE2 (66 %)`, and the longest wait. */
export function summaryOf(fn: FunctionTimeline, frequencyHz: number | null): string[] {
  const time = frequencyHz === null ? '' : ` (${((fn.total / frequencyHz) * 1e6).toFixed(2)} µs at ${(frequencyHz / 1e9).toFixed(2)} GHz)`;
  const lane = fn.lanes.find((l) => l.pipe === fn.bottleneck);
  const bottleneck = lane === undefined ? '' : ` · bottleneck ${lane.pipe} (${Math.round(lane.utilisation * 100)} % busy)`;
  const lines = [`≈ ${cycles(fn.total)} cycles${time}${bottleneck}`];
  const wait = fn.longestWait;
  if (wait !== null) {
    lines.push(
      `Longest wait: ${wait.pipe} idles ${cycles(wait.cycles)} cycles at line ${wait.waitLine + 1}, waiting for ${wait.signal} (set at line ${wait.setLine + 1}).`,
    );
  }
  return lines;
}

/** The page for an answer of `ptols/timeline`. */
export function renderTimeline(
  result: TimelineResult,
  sourceName: string,
  resources: PageResources,
  options: TimelineLayoutOptions = DEFAULT_TIMELINE_LAYOUT,
): string {
  const sections: string[] = [`<style nonce="${resources.nonce}">${STYLE}</style>`];
  if (result.functions.length === 0) {
    const why = result.message !== '' ? result.message : 'no kernel with pipe work.';
    sections.push(`<p class="summary">No timeline for ${escapeHtml(sourceName)}: ${escapeHtml(why)}</p>`);
  }
  for (const fn of result.functions) {
    const layout = layoutTimeline(fn, options);
    const notes = [...fn.notes, ...(layout.leftOut > 0 ? [`${cycles(layout.leftOut)} instructions not drawn`] : [])];
    sections.push(
      `<section class="function" data-function="${escapeHtml(fn.name)}" data-total="${fn.total}">`,
      `<h2><a data-reveal="${encodeRange(fn.range)}" title="Show the function">${escapeHtml(fn.name)}</a></h2>`,
      ...summaryOf(fn, result.frequencyHz).map((line) => `<p class="summary">${escapeHtml(line)}</p>`),
      ...(notes.length > 0 ? [`<p class="notes">${escapeHtml(notes.join('; '))}</p>`] : []),
      '<p class="summary">Predicted by the cost model (cycles). Hover a box for details, click it for its source line.</p>',
      svgFor(layout),
      '</section>',
    );
  }
  return page(resources, `Timeline of ${sourceName}`, sections.join('\n'));
}
