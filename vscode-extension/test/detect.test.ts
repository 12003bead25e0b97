import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasPrintedIrHeader, importsPyptoLanguage, isPyptoDocument, isPyptoText } from '../src/logic/detect';

describe('importsPyptoLanguage', () => {
  const yes = [
    'import pypto.language as pl\n',
    'import pypto.language\n',
    'import os, pypto.language as pl\n',
    'from pypto.language import Tensor, Tile\n',
    'from pypto.language import *\n',
    'from pypto import language as pl\n',
    'from pypto import (\n    ir,\n    language as pl,\n)\n',
    'import pypto.ir as pi\n',
    'from pypto import ir\n',
    'def f():\n    import pypto.language as pl\n',
    '"""doc"""\n\nimport numpy as np\nimport pypto.language as pl  # the DSL\n',
  ];
  for (const text of yes) {
    it(`accepts ${JSON.stringify(text)}`, () => {
      assert.equal(importsPyptoLanguage(text), true);
    });
  }

  const no = [
    '',
    'import pypto\n',
    'import pypto.runtime as rt\n',
    'from pypto.runtime import run\n',
    'from pypto import runtime\n',
    'import pypto_language\n',
    '# import pypto.language as pl\n',
    'x = "import pypto.language"\n',
    'import numpy as np\n',
    'from pypto import languages\n',
  ];
  for (const text of no) {
    it(`rejects ${JSON.stringify(text)}`, () => {
      assert.equal(importsPyptoLanguage(text), false);
    });
  }
});

describe('hasPrintedIrHeader', () => {
  it('accepts the printer header with and without a name', () => {
    assert.equal(hasPrintedIrHeader('# pypto.program: my_program\nimport pypto.language as pl\n'), true);
    assert.equal(hasPrintedIrHeader('#pypto.program\n'), true);
  });
  it('accepts the header after blank lines and other comments', () => {
    assert.equal(hasPrintedIrHeader('\n# generated\n\n# pypto.program: p\n'), true);
    assert.equal(hasPrintedIrHeader('\r\n# pypto.program: p\r\n'), true);
  });
  it('rejects a header after code or beyond the first 20 lines', () => {
    assert.equal(hasPrintedIrHeader('x = 1\n# pypto.program: p\n'), false);
    assert.equal(hasPrintedIrHeader('#\n'.repeat(20) + '# pypto.program: p\n'), false);
    assert.equal(hasPrintedIrHeader('#\n'.repeat(19) + '# pypto.program: p\n'), true);
  });
  it('rejects look-alikes', () => {
    assert.equal(hasPrintedIrHeader('# pypto.programs\n'), false);
    assert.equal(hasPrintedIrHeader('# about pypto.program\n'), false);
  });
});

describe('isPyptoDocument', () => {
  const doc = (text: string, languageId = 'python', scheme = 'file') => ({
    languageId,
    uri: { scheme },
    getText: () => text,
  });
  it('needs Python, a file on disk and the DSL', () => {
    assert.equal(isPyptoDocument(doc('import pypto.language as pl\n')), true);
    assert.equal(isPyptoDocument(doc('# pypto.program: p\n')), true);
    assert.equal(isPyptoDocument(doc('import pypto.language as pl\n', 'plaintext')), false);
    assert.equal(isPyptoDocument(doc('import pypto.language as pl\n', 'python', 'git')), false);
    assert.equal(isPyptoDocument(doc('import pypto.language as pl\n', 'python', 'ptoc-preview')), false);
    assert.equal(isPyptoDocument(doc('import numpy\n')), false);
  });
  it('isPyptoText combines both rules', () => {
    assert.equal(isPyptoText('# pypto.program\n'), true);
    assert.equal(isPyptoText('from pypto.language import Tensor\n'), true);
    assert.equal(isPyptoText('print(1)\n'), false);
  });
});
