/** The text of a preview document: the generated code, or why there is none. */
import type { PreviewDiagnostic, PreviewLanguage, PreviewResult } from './protocol';

const SEVERITY_NAMES: Record<number, string> = { 1: 'error', 2: 'warning', 3: 'information', 4: 'hint' };

export function commentPrefix(language: PreviewLanguage): string {
  return language === 'python' ? '#' : '//';
}

function comment(language: PreviewLanguage, lines: readonly string[]): string {
  const prefix = commentPrefix(language);
  return lines.map((line) => (line === '' ? prefix : `${prefix} ${line}`)).join('\n') + '\n';
}

export function formatDiagnostic(sourceName: string, diagnostic: PreviewDiagnostic): string {
  const { line, character } = diagnostic.range.start;
  const severity = SEVERITY_NAMES[diagnostic.severity] ?? 'error';
  const code = diagnostic.code ? `[${diagnostic.code}] ` : '';
  const message = diagnostic.message.replace(/\r?\n/g, ' ');
  return `${sourceName}:${line + 1}:${character + 1}: ${severity}: ${code}${message}`;
}

/**
 * Errors without content replace the code entirely: a stale preview next to a broken source
 * would look current. Severity 1 counts as an error; content with only warnings is shown as is,
 * content with errors under a banner (`hasBanner`).
 */
export function renderPreview(result: PreviewResult, sourceName: string, what: string): string {
  if (result.diagnostics.length > 0 && result.content === '') {
    const errors = result.diagnostics.filter((d) => d.severity === 1).length;
    const count = errors > 0 ? `${errors} error${errors === 1 ? '' : 's'}` : `${result.diagnostics.length} problem${result.diagnostics.length === 1 ? '' : 's'}`;
    return comment(result.language, [
      `No ${what} for ${sourceName}: it does not compile (${count}).`,
      '',
      ...result.diagnostics.map((d) => formatDiagnostic(sourceName, d)),
      '',
      'The preview updates by itself when the errors are fixed.',
    ]);
  }
  if (result.content === '') {
    return comment(result.language, [`${sourceName} produced no ${what} (no functions to compile?).`]);
  }
  const code = result.content.endsWith('\n') ? result.content : `${result.content}\n`;
  return hasBanner(result) ? banner(result, sourceName, what) + code : code;
}

/**
 * Text generated, yet with errors (PTO MLIR that PTOAS rejected): the text stays, since it is
 * what the errors are about, under a banner naming them, so it never passes for clean code.
 */
export function hasBanner(result: PreviewResult): boolean {
  return result.content !== '' && result.diagnostics.some((d) => d.severity === 1);
}

function banner(result: PreviewResult, sourceName: string, what: string): string {
  const errors = result.diagnostics.filter((d) => d.severity === 1);
  return comment(result.language, [
    `The ${what} below was generated for ${sourceName}, but it fails (${errors.length} error${errors.length === 1 ? '' : 's'}):`,
    '',
    ...errors.map((d) => formatDiagnostic(sourceName, d)),
    '',
    'The preview updates by itself when the errors are fixed.',
  ]) + '\n';
}

/** Shown when no answer could be had (server down, request failed). */
export function renderUnavailable(language: PreviewLanguage, sourceName: string, what: string, reason: string): string {
  return comment(language, [
    `No ${what} for ${sourceName}: ${reason}`,
    '',
    'Run "PyPTO: Restart Language Server" after fixing the cause; "PyPTO: Show Log" has details.',
  ]);
}
