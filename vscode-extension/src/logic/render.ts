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
 * Errors replace the code entirely: a stale preview next to a broken source would look current.
 * Severity 1 counts as an error; a result with content but only warnings shows the content.
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
  return result.content.endsWith('\n') ? result.content : `${result.content}\n`;
}

/** Shown when no answer could be had (server down, request failed). */
export function renderUnavailable(language: PreviewLanguage, sourceName: string, what: string, reason: string): string {
  return comment(language, [
    `No ${what} for ${sourceName}: ${reason}`,
    '',
    'Run "PyPTO: Restart Language Server" after fixing the cause; "PyPTO: Show Log" has details.',
  ]);
}
