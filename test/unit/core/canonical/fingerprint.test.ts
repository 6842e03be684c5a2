import { describe, expect, it } from 'vitest';
import {
  GRAPHFORGE_DOMAINS,
  fingerprint,
  fingerprintHeader,
  fingerprintHex,
  fingerprintPreimage,
  isDomainTag,
  projectDomain,
} from '../../../../core/canonical/fingerprint';
import type { DomainTag } from '../../../../core/canonical/fingerprint';
import { fromHex, toHex } from '../../../../core/canonical/hash';

// ordered-rows-ab vector of canonical-fingerprint-v1.subset.json.
const PAYLOAD =
  '47465431000000000000001f4746533100000001000000000000000576616c75650030000000000000000000000000000000020100000000000000016101000000000000000162';
const PREIMAGE =
  '474646500100176772617068666f7267652f6172726f772d726573756c7400000001000000000000004747465431000000000000001f4746533100000001000000000000000576616c75650030000000000000000000000000000000020100000000000000016101000000000000000162';

describe('fingerprint envelope', () => {
  it('rebuilds the vector preimage and hash', () => {
    const payload = fromHex(PAYLOAD);
    expect(toHex(fingerprintPreimage('graphforge/arrow-result', payload))).toBe(PREIMAGE);
    expect(fingerprintHex('graphforge/arrow-result', payload)).toBe(
      'd09722eb88164d15155dcc9a9aecfc341428fe1572f3375e132749f45ca854eb',
    );
    expect(fingerprint('graphforge/arrow-result', payload)).toHaveLength(32);
  });

  it('the header is the preimage prefix', () => {
    const payload = fromHex(PAYLOAD);
    const header = fingerprintHeader('graphforge/arrow-result', payload.length);
    expect(toHex(header)).toBe(PREIMAGE.slice(0, header.length * 2));
  });

  it('domain changes the fingerprint', () => {
    const p = new Uint8Array([1, 2, 3]);
    const all = new Set([...GRAPHFORGE_DOMAINS, projectDomain('graph_node')].map((d) => fingerprintHex(d, p)));
    expect(all.size).toBe(GRAPHFORGE_DOMAINS.length + 1);
  });

  it.each(['graphforge/unknown', 'GRAPHFORGE/SCHEMA', '', 'checkpoint-studio/', 'checkpoint-studio/Bad'])(
    'rejects domain %j with GF_CANONICAL_DOMAIN',
    (d) => {
      expect(isDomainTag(d)).toBe(false);
      expect(() => fingerprint(d as DomainTag, new Uint8Array(0))).toThrow(
        expect.objectContaining({ code: 'GF_CANONICAL_DOMAIN' }),
      );
    },
  );

  it('project domains live in their own namespace', () => {
    expect(projectDomain('graph_node')).toBe('checkpoint-studio/graph_node');
    expect(projectDomain('restoration_transition@1', 'identity')).toBe('checkpoint-studio/restoration_transition@1/identity');
    expect(isDomainTag(projectDomain('graph_edge'))).toBe(true);
    expect(() => projectDomain('../x')).toThrow(expect.objectContaining({ code: 'GF_CANONICAL_DOMAIN' }));
    expect(() => projectDomain('Graph Node')).toThrow(expect.objectContaining({ code: 'GF_CANONICAL_DOMAIN' }));
  });

  it('an oversized payload length is GF_CANONICAL_LIMIT', () => {
    expect(() => fingerprintHeader('graphforge/schema', 2 ** 31 + 1)).toThrow(
      expect.objectContaining({ code: 'GF_CANONICAL_LIMIT' }),
    );
  });
});
