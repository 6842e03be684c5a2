// CHAIN.md version-pin fence: the Postgres adapter is tested against exactly
// one `pg` release. package.json pins it exactly, the lockfile resolves that
// release, and the installed module is that release.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const root = path.resolve('.');

describe('pg_version_pin_fence', () => {
  it('package.json pins pg exactly; the lockfile and the installed module are that version', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const pin = pkg.dependencies['pg'];
    expect(pin).toMatch(/^\d+\.\d+\.\d+$/);
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; dependencies?: Record<string, string> }> };
    expect(lock.packages['']?.dependencies?.['pg']).toBe(pin);
    expect(lock.packages['node_modules/pg']?.version).toBe(pin);
    const installed = (require('pg/package.json') as { version: string }).version;
    expect(installed).toBe(pin);
  });
});
