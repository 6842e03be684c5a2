// The operation names are declared once (core/contract/operation-names.ts): the
// schemas in operations.ts sit under exactly those names, in that order, and
// the one membership rule (used by the dispatcher and the preload) accepts
// every one of them and nothing else.
import { describe, expect, it } from 'vitest';
import { OPERATIONS, OPERATION_NAMES, isOperationName } from '../../../../core/contract/operations';
import { createFacade } from '../../../../core/api/facade';

describe('operation names', () => {
  it('are the keys of the contract, in declaration order, and the dispatcher offers them in that order', async () => {
    expect(Object.keys(OPERATIONS)).toEqual([...OPERATION_NAMES]);
    const facade = createFacade({ mode: 'library' });
    try {
      expect(facade.dispatcher.available).toEqual([...OPERATION_NAMES]);
    } finally {
      await facade.close();
    }
  });

  it('the membership rule accepts every declared name, including those with an underscore, and nothing else', () => {
    for (const name of OPERATION_NAMES) expect(isOperationName(name), name).toBe(true);
    expect(OPERATION_NAMES.filter((n) => n.includes('_')).length).toBeGreaterThan(0);
    for (const name of ['checkpoints.nope', 'Checkpoints.list', ' checkpoints.list', 'constructor', '__proto__', 'toString', 'hasOwnProperty', '', 'gf:app.session', 1, null, undefined, {}]) {
      expect(isOperationName(name), String(name)).toBe(false);
    }
  });

  it('an unknown name gets the same refusal from the dispatcher on every surface', async () => {
    const facade = createFacade({ mode: 'electron' });
    try {
      const env = await facade.dispatcher.dispatch('checkpoints.nope', {});
      expect(env.ok ? 'ok' : [env.error.code, env.error.message, env.error.details]).toEqual(['GF_VALIDATION', 'GF_VALIDATION: unknown operation', {}]);
    } finally {
      await facade.close();
    }
  });
});
