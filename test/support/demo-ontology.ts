// The demo's strict ontology as YAML input to adopt_ontology (the classes and
// relations the demo graph uses), shared by the adopt tests.

/** The demo graph's classes and relations, as an adopt input (YAML); `extraClasses` adds classes after the demo's. */
export function demoOntologyYaml(extraClasses: readonly { id: string; label: string }[] = []): string {
  const classes = [
    ['paper', 'Paper'],
    ['author', 'Author'],
    ['concept', 'Concept'],
    ['dataset', 'Dataset'],
    ['software', 'Software'],
    ...extraClasses.map((c) => [c.id, c.label] as const),
  ];
  const relations = [
    ['cites', 'Cites', 'paper', 'paper'],
    ['authored_by', 'Authored by', 'paper', 'author'],
    ['mentions', 'Mentions', 'paper', 'concept'],
    ['uses', 'Uses', 'paper', 'dataset'],
    ['implements', 'Implements', 'software', 'concept'],
  ];
  return [
    'classes:',
    ...classes.map(([id, label]) => `  - {id: ${id}, label: ${label}}`),
    'relations:',
    ...relations.map(([id, label, d, r]) => `  - {id: ${id}, label: ${label}, domain_class_id: ${d}, range_class_id: ${r}}`),
    '',
  ].join('\n');
}
