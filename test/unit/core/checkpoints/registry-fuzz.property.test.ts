import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../core/canonical';
import { decideRecovery } from '../../../../core/checkpoints/recovery';
import type { Observed, RegistryObservation } from '../../../../core/checkpoints/recovery';
import { encodeChecksum, encodeIntent, encodeRegistry, tempNames } from '../../../../core/checkpoints/registry-format';
import { isPlan } from '../../../../core/checkpoints/registry-core';
import { GfError } from '../../../../core/errors';
import { creating, deleting, docWith, uuidN } from './registry-support';

/** The on-disk files of one consistent state, by name (temporaries named by the intent). */
type Files = Readonly<Record<string, Uint8Array>>;

const TXN = '33333333-4444-4555-8666-777777777777';
const T = tempNames(TXN);

function states(): ReadonlyArray<readonly [string, Files]> {
  const prev = (() => {
    const p = deleting('b', uuidN(50))(docWith(['a', 'b', 'c']));
    if (!isPlan(p)) throw new Error('replay');
    return p.next;
  })();
  const prevBytes = encodeRegistry(prev);
  const plan = creating('d', uuidN(60))(prev);
  if (!isPlan(plan)) throw new Error('replay');
  const nextBytes = plan.bytes;
  const intent = encodeIntent({
    transaction_uuid: TXN,
    previous_revision: prev.revision,
    previous_sha256: sha256Hex(prevBytes),
    next_revision: prev.revision + 1,
    next_sha256: sha256Hex(nextBytes),
    registry_temp: T.registryTemp,
    checksum_temp: T.checksumTemp,
  });
  return [
    ['settled', { 'registry.json': prevBytes, 'registry.json.sha256': encodeChecksum(prevBytes) }],
    ['staged (row 3)', { 'registry.json': prevBytes, 'registry.json.sha256': encodeChecksum(prevBytes), 'registry.txn.json': intent, [T.registryTemp]: nextBytes, [T.checksumTemp]: encodeChecksum(nextBytes) }],
    ['half replaced (row 5)', { 'registry.json': nextBytes, 'registry.json.sha256': encodeChecksum(prevBytes), 'registry.txn.json': intent, [T.checksumTemp]: encodeChecksum(nextBytes) }],
    ['replaced (row 6)', { 'registry.json': nextBytes, 'registry.json.sha256': encodeChecksum(nextBytes), 'registry.txn.json': intent }],
  ];
}

function observe(files: Files): RegistryObservation {
  const at = (n: string): Observed => (files[n] === undefined ? { kind: 'absent' } : { kind: 'present', bytes: files[n] as Uint8Array });
  return {
    registry: at('registry.json'),
    checksum: at('registry.json.sha256'),
    intent: at('registry.txn.json'),
    temps: (i) => ({ registryTemp: at(i.registry_temp), checksumTemp: at(i.checksum_temp) }),
  };
}

describe('registry byte corruption', () => {
  it('fuzz: every flip, truncation or extension of registry, checksum, intent or temp is a typed refusal', () => {
    const all = states();
    // Sanity: the untouched states are accepted, so a refusal below is caused by the damage.
    for (const [, files] of all) expect(() => decideRecovery(observe(files))).not.toThrow();
    const mutation = fc.record({
      state: fc.nat({ max: all.length - 1 }),
      file: fc.nat(),
      kind: fc.constantFrom('flip', 'truncate', 'extend'),
      pos: fc.nat(),
      mask: fc.integer({ min: 1, max: 255 }),
    });
    let cases = 0;
    fc.assert(
      fc.property(mutation, ({ state, file, kind, pos, mask }) => {
        const [label, files] = all[state]!;
        const names = Object.keys(files);
        const name = names[file % names.length]!;
        const original = files[name]!;
        let damaged: Uint8Array;
        if (kind === 'flip') {
          damaged = original.slice();
          const i = pos % original.length;
          damaged[i] = (damaged[i] as number) ^ mask;
        } else if (kind === 'truncate') {
          damaged = original.slice(0, pos % original.length);
        } else {
          damaged = new Uint8Array(original.length + 1);
          damaged.set(original);
          damaged[original.length] = mask;
        }
        let code = 'accepted';
        try {
          decideRecovery(observe({ ...files, [name]: damaged }));
        } catch (e) {
          code = e instanceof GfError ? e.code : `untyped ${String(e)}`;
        }
        cases += 1;
        expect(code, `${label} / ${name} / ${kind}`).toBe('GF_CHECKPOINT_REGISTRY_CORRUPT');
      }),
      { numRuns: 4000, seed: 1404 },
    );
    expect(cases).toBe(4000);
  });

  it('removing any one file of an in-flight state is refused unless the table says otherwise', () => {
    // Removing a file from a consistent state is either a documented row or a refusal; never a default.
    const allowed: Record<string, string> = {
      // row 5 → the installed checksum may be missing
      'half replaced (row 5)/registry.json.sha256': 'intent_install_next_checksum',
      // without the intent, strays do not matter and the installed valid pair is accepted
      'staged (row 3)/registry.txn.json': 'no_intent_accept_installed',
      'replaced (row 6)/registry.txn.json': 'no_intent_accept_installed',
    };
    for (const [label, files] of states()) {
      for (const name of Object.keys(files)) {
        const rest = { ...files };
        delete (rest as Record<string, Uint8Array>)[name];
        let outcome: string;
        try {
          outcome = decideRecovery(observe(rest)).row;
        } catch (e) {
          outcome = (e as GfError).code;
        }
        expect(outcome, `${label}/${name}`).toBe(allowed[`${label}/${name}`] ?? 'GF_CHECKPOINT_REGISTRY_CORRUPT');
      }
    }
  });
});
