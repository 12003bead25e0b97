/** What ptols/timeline answers for simple_add (examples/simple_add.py, tests/timeline). */
export const SIMPLE_ADD_ANSWER = {
  version: 1,
  frequencyHz: 1.85e9,
  message: '',
  functions: [
    {
      name: 'simple_add',
      range: { start: { line: 12, character: 4 }, end: { line: 24, character: 21 } },
      total: 1686,
      lanes: [
        { pipe: 'MTE2', busy: 1118, utilisation: 0.6631 },
        { pipe: 'MTE3', busy: 299, utilisation: 0.1773 },
        { pipe: 'V', busy: 266, utilisation: 0.1578 },
      ],
      instructions: [
        { name: 'TLOAD', pipe: 'MTE2', start: 3, cycles: 559, line: 18 },
        { name: 'TLOAD', pipe: 'MTE2', start: 562, cycles: 559, line: 19 },
        { name: 'TADD', pipe: 'V', start: 1121, cycles: 266, line: 20 },
        { name: 'TSTORE', pipe: 'MTE3', start: 1387, cycles: 299, line: 21 },
      ],
      arrows: [
        { signal: 'MTE2', wait: 'V', setTime: 1121, waitTime: 1121, setLine: 20, waitLine: 20 },
        { signal: 'V', wait: 'MTE3', setTime: 1387, waitTime: 1387, setLine: 21, waitLine: 21 },
      ],
      criticalPath: [0, 1, 2, 3],
      bottleneck: 'MTE2',
      longestWait: { pipe: 'MTE3', signal: 'V', cycles: 1384, waitLine: 21, setLine: 21 },
      notes: [],
    },
  ],
};
