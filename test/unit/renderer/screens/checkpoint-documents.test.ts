import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../core/canonical/index';
import { configurationRows } from '../../../../renderer/screens/checkpoint-documents';

describe('checkpoint screen: the configuration table', () => {
  it('lists the mode, then every capability setting, then every embedding setting, in the document order', () => {
    const rows = configurationRows({
      ontology_mode: 'strict',
      capability_configuration: canonicalJson({ graph: { max_property_bytes: 4096 }, knowledge: { min_confidence_percent: 50 } }),
      embedding_configuration: canonicalJson({ dimensions: 384, distance: 'cosine' }),
    });
    expect(rows).toEqual([
      { group: 'workspace', setting: 'ontology_mode', value: 'strict' },
      { group: 'graph', setting: 'max_property_bytes', value: '4096' },
      { group: 'knowledge', setting: 'min_confidence_percent', value: '50' },
      { group: 'embedding', setting: 'dimensions', value: '384' },
      { group: 'embedding', setting: 'distance', value: 'cosine' },
    ]);
  });

  it('an empty configuration is the mode alone', () => {
    expect(configurationRows({ ontology_mode: 'none', capability_configuration: '{}', embedding_configuration: '{}' })).toEqual([{ group: 'workspace', setting: 'ontology_mode', value: 'none' }]);
  });
});
