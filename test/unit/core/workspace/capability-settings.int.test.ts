import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Table } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGfError } from '../../../../core/errors';
import { createProject } from '../../../../core/project/index';
import type { ParticipantChange, Project } from '../../../../core/project/index';
import {
  DEFAULT_CONFIGURATION,
  GRAPH_NODE,
  KNOWLEDGE_ASSERTION,
  KNOWLEDGE_CONFIDENCE_ASSESSMENT,
  PROVENANCE_EVENT,
  configurationDocumentBytes,
  encodeRecords,
  registryCatalog,
} from '../../../../core/participants/index';
import type { ConfigurationDocument } from '../../../../core/participants/index';
import { CAPABILITY_SETTINGS } from '../../../../core/contract/workspace';
import { nodeRecords, testUuid } from '../../../support/project-fixtures';
import { treeDigest } from '../../../support/project-state';

// Each recognized capability setting, set in the workspace configuration,
// is enforced on publication: records that break it are refused with the
// setting's rule and nothing on disk changes; records within it publish.

const T0 = 1_700_000_000_000_000n;

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gf-settings-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function config(capability_configuration: ConfigurationDocument['capability_configuration']): ParticipantChange {
  return { kind: 'put', capabilityId: 'workspace', recordFamilyId: 'configuration', bytes: configurationDocumentBytes({ ...DEFAULT_CONFIGURATION, capability_configuration }) };
}

function nodesWithProperties(properties: string): ParticipantChange {
  const records = nodeRecords(2, 'settings').map((r, i) => ({ ...r, properties: i === 0 ? properties : null }));
  return { kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, records) };
}

function assessments(confidence: number): ParticipantChange[] {
  const node = nodeRecords(1, 'settings')[0] as { node_uuid: string };
  const assertion = { assertion_uuid: testUuid('a'), subject_node_uuid: node.node_uuid, predicate: 'cites', object_node_uuid: null, object_literal: 'x', event_uuid: null, asserted_at: T0 };
  const assessed = [0.95, confidence].map((c, i) => ({ assessment_uuid: testUuid(`c${i}`), assertion_uuid: assertion.assertion_uuid, confidence: c, method: 'manual', assessed_at: T0 }));
  return [
    { kind: 'put', capabilityId: 'graph', recordFamilyId: 'node', bytes: encodeRecords(GRAPH_NODE, nodeRecords(1, 'settings')) },
    { kind: 'put', capabilityId: 'knowledge', recordFamilyId: 'assertion', bytes: encodeRecords(KNOWLEDGE_ASSERTION, [assertion]) },
    { kind: 'put', capabilityId: 'knowledge', recordFamilyId: 'confidence_assessment', bytes: encodeRecords(KNOWLEDGE_CONFIDENCE_ASSESSMENT, assessed) },
  ];
}

function events(agent: string | null): ParticipantChange {
  const recs = [
    { event_uuid: testUuid('e0'), activity: 'import', agent: 'loader', started_at: T0, ended_at: null },
    { event_uuid: testUuid('e1'), activity: 'curate', agent, started_at: T0, ended_at: null },
  ];
  return { kind: 'put', capabilityId: 'provenance', recordFamilyId: 'event', bytes: encodeRecords(PROVENANCE_EVENT, recs) };
}

async function publish(p: Project<Table>, changes: ParticipantChange[]): Promise<string> {
  try {
    await p.publish({ parent: p.current()?.generationUuid ?? null, changes });
    return 'published';
  } catch (e) {
    return isGfError(e) ? `${e.code}:${String(e.details.rule)}:committed=${String(e.committed)}` : `other: ${String(e)}`;
  }
}

/**
 * Asserts that a refused publication changed nothing: every entry is as it
 * was; the only new ones are the refused transaction's journal, in state
 * ABORTED (the publication protocol's record of it), and an object fan-out
 * directory left empty.
 */
function expectUnchanged(root: string, before: Record<string, string>): void {
  const after = treeDigest(root);
  for (const [name, digest] of Object.entries(before)) expect(after[name], name).toBe(digest);
  const added = Object.keys(after).filter((name) => !(name in before));
  for (const name of added) {
    if (/^objects\/sha256\/[0-9a-f]{2}\/$/.test(name)) expect(fs.readdirSync(path.join(root, name)), name).toEqual([]);
    else {
      expect(name).toMatch(/^transactions\/[0-9a-f-]{36}\.json$/);
      expect((JSON.parse(fs.readFileSync(path.join(root, name), 'utf8')) as { state: string }).state).toBe('ABORTED');
    }
  }
  expect(added.filter((name) => name.startsWith('transactions/'))).toHaveLength(1);
}

/**
 * [setting, configuration that sets it, a change on its limit, a change just past it, the rule].
 *
 * The properties are 16 and 17 UTF-8 bytes in 15 and 16 UTF-16 units (counted in bytes).
 */
const CASES: readonly [string, ConfigurationDocument['capability_configuration'], () => ParticipantChange[], () => ParticipantChange[], string][] = [
  ['graph.max_property_bytes', { graph: { max_property_bytes: 16 } }, () => [nodesWithProperties('{"k":"é123456"}')], () => [nodesWithProperties('{"k":"é1234567"}')], 'graph.node.max_property_bytes'],
  ['knowledge.min_confidence_percent', { knowledge: { min_confidence_percent: 29 } }, () => assessments(0.29), () => assessments(0.28), 'knowledge.confidence_assessment.min_confidence'],
  ['provenance.record_agents', { provenance: { record_agents: true } }, () => [events('curator')], () => [events(null)], 'provenance.event.agent_recorded'],
];

describe('capability settings of the workspace configuration', () => {
  it('the cases cover every recognized capability setting', () => {
    expect(CASES.map((c) => c[0]).sort()).toEqual(Object.entries(CAPABILITY_SETTINGS).flatMap(([c, s]) => Object.keys(s).map((k) => `${c}.${k}`)).sort());
  });

  it.each(CASES)('%s: a publication that breaks it is refused with its rule and changes nothing on disk; within it, it publishes', async (setting, settings, within, breaking, rule) => {
    const root = path.join(tmp, setting);
    const p = await createProject<Table>(root, { catalog: registryCatalog });
    // Without the setting the breaking records publish; the configuration that sets it is then refused (they break it).
    expect(await publish(p, breaking())).toBe('published');
    const before = treeDigest(root);
    expect(await publish(p, [config(settings)])).toBe(`GF_VALIDATION:${rule}:committed=false`);
    expectUnchanged(root, before);
    // Records within the setting, then the setting: published; breaking records under it: refused, nothing changed.
    expect(await publish(p, within())).toBe('published');
    expect(await publish(p, [config(settings)])).toBe('published');
    const set = treeDigest(root);
    expect(await publish(p, breaking())).toBe(`GF_VALIDATION:${rule}:committed=false`);
    expectUnchanged(root, set);
  });
});
