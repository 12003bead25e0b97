import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SpecialisationChoices, specialisationNoteMessage } from '../src/logic/specialisationChoice';

describe('specialisationNoteMessage', () => {
  it("makes the server's note a status message, and nothing without one", () => {
    assert.equal(
      specialisationNoteMessage({ note: "'scale': specialisation 2 is no longer in the file; using its first" }),
      "PyPTO: 'scale': specialisation 2 is no longer in the file; using its first",
    );
    assert.equal(specialisationNoteMessage({}), undefined);
    assert.equal(specialisationNoteMessage({ note: '' }), undefined);
  });
});

describe('SpecialisationChoices', () => {
  it('sends the key the server gave, kernel name included', () => {
    const choices = new SpecialisationChoices();
    assert.deepEqual(choices.fields('file:///k.py'), {});
    choices.set('file:///k.py', { index: 2, key: 'twice(a: Tensor[[32, 32], FP32])' });
    assert.deepEqual(choices.fields('file:///k.py'), { specialisation: 2, specialisationKey: 'twice(a: Tensor[[32, 32], FP32])' });
  });
});
