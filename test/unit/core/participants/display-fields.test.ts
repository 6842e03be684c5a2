import { describe, expect, it } from 'vitest';
import { DISPLAY_FIELDS, RECORD_FAMILIES, displayFieldsOf, familyByKey } from '../../../../core/participants';

describe('display fields', () => {
  it('every registered family declares display fields that exist; labels point at a record-UUID family with that field', () => {
    for (const family of RECORD_FAMILIES) {
      const fields = displayFieldsOf(family);
      expect(fields.length, family.key).toBeGreaterThan(0);
      expect(DISPLAY_FIELDS[family.key], `${family.key} declares its display fields`).toBeDefined();
      expect(new Set(fields.map((f) => f.name)).size).toBe(fields.length);
      for (const f of fields) {
        expect(family.field(f.field), `${family.key}.${f.field}`).toBeDefined();
        if (f.orField !== undefined) expect(family.field(f.orField)).toBeDefined();
        if (f.labelOf !== undefined) {
          expect(family.field(f.field)?.kind).toBe('uuid');
          const target = familyByKey(f.labelOf.target);
          expect(target?.recordUuidField, f.labelOf.target).not.toBeNull();
          expect(target?.identityFields).toEqual([target?.recordUuidField]);
          expect(target?.field(f.labelOf.show)).toBeDefined();
        }
      }
    }
  });

  it('a family without a declaration shows its identity fields', () => {
    expect(displayFieldsOf({ capabilityId: 'x', recordFamilyId: 'y', identityFields: ['a', 'b'] }).map((f) => f.field)).toEqual(['a', 'b']);
  });
});
