/**
 * Questions asked of a `ptols/sourceMap` answer: which generated lines a source position became,
 * and where a generated line came from.
 */
import type { LspPosition, LspRange, SourceMapEntry, SourceMapResult } from './protocol';

export interface LineSpan {
  /** Inclusive 0-based lines. */
  startLine: number;
  endLine: number;
}

function contains(range: LspRange, position: LspPosition): boolean {
  const afterStart =
    position.line > range.start.line || (position.line === range.start.line && position.character >= range.start.character);
  const beforeEnd = position.line < range.end.line || (position.line === range.end.line && position.character <= range.end.character);
  return afterStart && beforeEnd;
}

function coversLine(range: LspRange, line: number): boolean {
  return range.start.line <= line && line <= range.end.line;
}

function lineCount(range: LspRange): number {
  return range.end.line - range.start.line;
}

/**
 * The generated lines of the innermost source construct at `position`. A line holds one
 * statement, but compound statements (loops, ifs, the function) span their bodies: the entries
 * spanning the fewest source lines win, so the cursor in a loop body shows that statement, on
 * the loop's header the loop. Within the line, entries whose range holds the cursor column are
 * preferred (two statements on one line), else all of the line's count.
 */
export function generatedSpansFor(entries: readonly SourceMapEntry[], position: LspPosition): LineSpan[] {
  const onLine = entries.filter((entry) => coversLine(entry.source, position.line));
  if (onLine.length === 0) {
    return [];
  }
  const fewest = Math.min(...onLine.map((entry) => lineCount(entry.source)));
  const innermost = onLine.filter((entry) => lineCount(entry.source) === fewest);
  const atCursor = innermost.filter((entry) => contains(entry.source, position));
  return mergeSpans((atCursor.length > 0 ? atCursor : innermost).map((entry) => entry.generated));
}

/** Sorted, with touching or overlapping spans joined (fewer decorations, one reveal target). */
export function mergeSpans(spans: readonly LineSpan[]): LineSpan[] {
  const sorted = [...spans].sort((a, b) => a.startLine - b.startLine);
  const merged: LineSpan[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && span.startLine <= last.endLine + 1) {
      last.endLine = Math.max(last.endLine, span.endLine);
    } else {
      merged.push({ startLine: span.startLine, endLine: span.endLine });
    }
  }
  return merged;
}

/** The entry a generated line belongs to (each line is in at most one), if any. */
export function entryAt(entries: readonly SourceMapEntry[], line: number): SourceMapEntry | undefined {
  return entries.find((entry) => entry.generated.startLine <= line && line <= entry.generated.endLine);
}

/** The preview shows the content with a final newline added (see render.ts): the same lines. */
export function mapMatchesPreview(map: SourceMapResult, previewText: string): boolean {
  if (map.content === '') {
    return false;
  }
  const shown = map.content.endsWith('\n') ? map.content : `${map.content}\n`;
  return shown === previewText;
}
