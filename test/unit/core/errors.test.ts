import { describe, expect, it } from 'vitest';
import { GfError, hasCode, toWireError } from '../../../core/errors';
import { fromWireError } from '../../../core/contract/errors';

describe('errors', () => {
  it('round-trips a GF error through its wire form with code, committed and details', () => {
    const e = new GfError('GF_WRITER_BUSY', 'writer lock is held', { operation: 'publish' }, false);
    const back = fromWireError(JSON.parse(JSON.stringify(toWireError(e))));
    expect(back.code).toBe('GF_WRITER_BUSY');
    expect(back.committed).toBe(false);
    expect(back.details).toEqual({ operation: 'publish' });
    expect(hasCode(back, 'GF_WRITER_BUSY')).toBe(true);
  });

  it('never leaks the message of a non-engine error', () => {
    const w = toWireError(new Error('/home/alice/secret path'));
    expect(w.code).toBe('GF_INTERNAL');
    expect(w.message).not.toContain('alice');
  });
});
