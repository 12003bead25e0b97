/**
 * Which documents are PyPTO files: Python that imports `pypto.language` (or seed 003's
 * `pypto.ir`), or printed IR whose first lines carry `# pypto.program`. This mirrors the
 * compiler's own rule closely enough to decide where the extension shows itself; the server
 * has the final word on what it analyses.
 */

/** How far down a printed IR header may appear (the compiler reads the same 20 lines). */
const HEADER_SCAN_LINES = 20;
const HEADER = /^#\s*pypto\.program\b/;

const IMPORT_PATTERNS: readonly RegExp[] = [
  // import pypto.language [as pl]  /  import os, pypto.language as pl
  /^[ \t]*import[ \t]+(?:[\w.]+(?:[ \t]+as[ \t]+\w+)?[ \t]*,[ \t]*)*pypto\.(?:language|ir)\b/m,
  // from pypto.language import ...
  /^[ \t]*from[ \t]+pypto\.language[ \t]+import\b/m,
  // from pypto import language [as pl]  (also inside parentheses over several lines)
  /^[ \t]*from[ \t]+pypto[ \t]+import[ \t]+(?:\([^)]*\b(?:language|ir)\b|[^\n#]*\b(?:language|ir)\b)/m,
];

export function hasPrintedIrHeader(text: string): boolean {
  const lines = text.split(/\r?\n/, HEADER_SCAN_LINES);
  for (const line of lines) {
    const stripped = line.trim();
    if (stripped === '') {
      continue;
    }
    if (HEADER.test(stripped)) {
      return true;
    }
    if (!stripped.startsWith('#')) {
      return false;
    }
  }
  return false;
}

export function importsPyptoLanguage(text: string): boolean {
  // Every accepted form names the package, so most Python files are rejected by one scan.
  if (!text.includes('pypto')) {
    return false;
  }
  return IMPORT_PATTERNS.some((pattern) => pattern.test(text));
}

export function isPyptoText(text: string): boolean {
  return hasPrintedIrHeader(text) || importsPyptoLanguage(text);
}

/** The part of a text document the detection needs (vscode.TextDocument satisfies it). */
export interface DocumentLike {
  languageId: string;
  uri: { scheme: string };
  getText(): string;
}

/** Only files on disk go to the server (the document selector is python/file). */
export const ANALYSED_SCHEMES: readonly string[] = ['file'];

export function isPyptoDocument(document: DocumentLike): boolean {
  return (
    document.languageId === 'python' &&
    ANALYSED_SCHEMES.includes(document.uri.scheme) &&
    isPyptoText(document.getText())
  );
}
