import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/chain');

/**
 * Compares `value` with test/fixtures/chain/<name>.json.
 *
 * Regenerated only when GF_UPDATE_GOLDENS=1; otherwise a missing or different
 * golden fails (drift in canonical bytes or the head formula is a format change).
 */
export function expectGolden(name: string, value: unknown): void {
  const file = join(FIXTURES, `${name}.json`);
  const text = `${JSON.stringify(value, null, 2)}\n`;
  if (process.env.GF_UPDATE_GOLDENS === '1') {
    writeFileSync(file, text);
    return;
  }
  expect(existsSync(file), `golden ${name}.json missing: run with GF_UPDATE_GOLDENS=1 once, review, commit`).toBe(true);
  expect(JSON.parse(text), `chain golden drift in ${name}.json: if intended, regenerate with GF_UPDATE_GOLDENS=1`).toEqual(
    JSON.parse(readFileSync(file, 'utf8')),
  );
}

/** Reads a fixture file's bytes. */
export function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}
