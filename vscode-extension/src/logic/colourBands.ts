/**
 * Colour bands, as Compiler Explorer draws them: each kernel statement and the generated lines
 * it became share a tint. From a preview's source map: a statement is a source range; a kernel
 * line takes the innermost statement on it (a loop's body lines are their statements', its
 * header the loop's), and the statements take the colours in source order, round the palette.
 */
import type { LspRange, SourceMapEntry } from './protocol';

export const BAND_COLOURS = 6;

export interface Bands {
  /** Per colour, the 0-based lines of the preview. */
  generated: number[][];
  /** Per colour, the 0-based lines of the kernel. */
  source: number[][];
}

const key = (range: LspRange): string => `${range.start.line}:${range.start.character}-${range.end.line}:${range.end.character}`;
const span = (range: LspRange): number => range.end.line - range.start.line;

function before(a: LspRange, b: LspRange): number {
  return a.start.line - b.start.line || a.start.character - b.start.character || span(b) - span(a);
}

export function colourBands(entries: readonly SourceMapEntry[], colours = BAND_COLOURS): Bands {
  const statements = [...new Map(entries.map((e) => [key(e.source), e.source])).values()].sort(before);
  const colourOf = new Map(statements.map((range, index) => [key(range), index % colours]));
  const bands: Bands = {
    generated: Array.from({ length: colours }, () => []),
    source: Array.from({ length: colours }, () => []),
  };
  for (const entry of entries) {
    const colour = colourOf.get(key(entry.source)) ?? 0;
    for (let line = entry.generated.startLine; line <= entry.generated.endLine; line++) {
      bands.generated[colour].push(line);
    }
  }
  const innermost = new Map<number, LspRange>();
  for (const range of statements) {
    for (let line = range.start.line; line <= range.end.line; line++) {
      const held = innermost.get(line);
      if (held === undefined || span(range) < span(held)) {
        innermost.set(line, range);
      }
    }
  }
  for (const [line, range] of [...innermost.entries()].sort((a, b) => a[0] - b[0])) {
    bands.source[colourOf.get(key(range)) ?? 0].push(line);
  }
  return bands;
}
