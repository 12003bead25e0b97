import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PreviewResult } from '../src/logic/protocol';
import { commentPrefix, formatDiagnostic, hasBanner, renderPreview, renderUnavailable } from '../src/logic/render';

const range = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 3 } });

describe('renderPreview', () => {
  it('shows generated code as is, ending in a newline', () => {
    const result: PreviewResult = { language: 'cpp', content: 'int x;', version: 3, diagnostics: [] };
    assert.equal(renderPreview(result, 'k.py', 'C++'), 'int x;\n');
    assert.equal(renderPreview({ ...result, content: 'int x;\n' }, 'k.py', 'C++'), 'int x;\n');
  });

  it('shows the errors instead of code when the source does not compile', () => {
    const result: PreviewResult = {
      language: 'cpp',
      content: '',
      version: 4,
      diagnostics: [
        { range: range(21, 8), severity: 1, code: 'PTO301', message: 'shapes [128, 64] and [64, 64]\ndo not match' },
        { range: range(3, 0), severity: 2, message: 'unused' },
      ],
    };
    assert.equal(
      renderPreview(result, 'simple_add.py', 'C++'),
      [
        '// No C++ for simple_add.py: it does not compile (1 error).',
        '//',
        '// simple_add.py:22:9: error: [PTO301] shapes [128, 64] and [64, 64] do not match',
        '// simple_add.py:4:1: warning: unused',
        '//',
        '// The preview updates by itself when the errors are fixed.',
        '',
      ].join('\n'),
    );
  });

  it('uses Python comments for IR previews', () => {
    const result: PreviewResult = {
      language: 'python',
      content: '',
      version: null,
      diagnostics: [{ range: range(0, 0), severity: 1, message: 'a' }, { range: range(1, 0), severity: 1, message: 'b' }],
    };
    const text = renderPreview(result, 'k.py', 'IR');
    assert.ok(text.startsWith('# No IR for k.py: it does not compile (2 errors).\n#\n# k.py:1:1: error: a\n'));
  });

  it('keeps code when the diagnostics are only warnings', () => {
    const result: PreviewResult = {
      language: 'mlir',
      content: 'module {}\n',
      version: 1,
      diagnostics: [{ range: range(0, 0), severity: 2, message: 'w' }],
    };
    assert.equal(renderPreview(result, 'k.py', 'MLIR'), 'module {}\n');
  });

  it('keeps generated text that has errors under a banner naming them', () => {
    const result: PreviewResult = {
      language: 'mlir',
      content: 'module {\n}\n',
      version: 2,
      diagnostics: [
        { range: range(11, 8), severity: 1, code: 'E405', message: 'PTOAS: v0.27 crashes on an scf.for (MLIR line 21)' },
        { range: range(3, 0), severity: 2, message: 'unused' },
      ],
    };
    assert.ok(hasBanner(result));
    assert.equal(
      renderPreview(result, 'rows.py', 'MLIR'),
      [
        '// The MLIR below was generated for rows.py, but it fails (1 error):',
        '//',
        '// rows.py:12:9: error: [E405] PTOAS: v0.27 crashes on an scf.for (MLIR line 21)',
        '//',
        '// The preview updates by itself when the errors are fixed.',
        '',
        'module {',
        '}',
        '',
      ].join('\n'),
    );
    assert.ok(!hasBanner({ ...result, diagnostics: result.diagnostics.slice(1) }));
    assert.ok(!hasBanner({ ...result, content: '' }));
  });

  it('explains an empty result', () => {
    const result: PreviewResult = { language: 'mlir', content: '', version: 1, diagnostics: [] };
    assert.equal(renderPreview(result, 'k.py', 'MLIR'), '// k.py produced no MLIR (no functions to compile?).\n');
  });
});

describe('helpers', () => {
  it('formats one diagnostic like a compiler', () => {
    assert.equal(
      formatDiagnostic('a.py', { range: range(0, 4), severity: 4, code: 'X1', message: 'm' }),
      'a.py:1:5: hint: [X1] m',
    );
    assert.equal(formatDiagnostic('a.py', { range: range(9, 0), severity: 99, message: 'm' }), 'a.py:10:1: error: m');
  });
  it('comment prefixes follow the language', () => {
    assert.deepEqual([commentPrefix('cpp'), commentPrefix('mlir'), commentPrefix('python')], ['//', '//', '#']);
  });
  it('explains an unavailable server', () => {
    assert.equal(
      renderUnavailable('python', 'k.py', 'IR after InsertSync', 'the server is not running.'),
      '# No IR after InsertSync for k.py: the server is not running.\n#\n' +
        '# Run "PyPTO: Restart Language Server" after fixing the cause; "PyPTO: Show Log" has details.\n',
    );
  });
});
