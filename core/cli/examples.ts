import type { Command } from 'commander';

/**
 * One worked example per `gf` command, shown at the end of its `--help`.
 *
 * Keyed by the command path (commands that write their own, like `serve`,
 * are not listed); a test checks that every leaf command's help shows one,
 * so a new command cannot ship without it.
 */
export const COMMAND_EXAMPLES: Readonly<Record<string, string>> = {
  'canonical vectors': 'gf canonical vectors test/fixtures/canonical-fingerprint-v1.subset.json --json',
  'demo create': 'gf demo create ./demo --records 10000 --seed 1',
  publish: 'gf publish --project ./demo --family workspace/configuration --file config.json',
  'checkpoint create': 'gf checkpoint create "Release 1.0" --description "release candidate" --project ./demo',
  'checkpoint delete': 'gf checkpoint delete "Release 1.0" --project ./demo',
  'checkpoint list': 'gf checkpoint list --project ./demo --limit 50 --json',
  'checkpoint show': 'gf checkpoint show "Graph imported" --project ./demo --json',
  'checkpoint open': 'gf checkpoint open "Graph imported" --project ./demo -- records graph/node --limit 20',
  'checkpoint diff': 'gf checkpoint diff "Graph imported" CURRENT --project ./demo --scope graph --detail records --json',
  'checkpoint revert': 'gf checkpoint revert "Graph imported" --reason "bad import on 2026-11-30" --project ./demo',
  log: 'gf log --project ./demo --kind revert',
  'graph find': 'gf graph find "Graph imported" "Paper 1" --project ./demo --limit 5',
  'graph neighbourhood': 'gf graph neighbourhood "Graph imported" 017e1fb9-c0eb-81fd-8fd8-e84b1d7108de --depth 2 --project ./demo --json',
  'graph diff': 'gf graph diff "Graph imported" CURRENT --kind modified --project ./demo',
  'retention show': 'gf retention show --project ./demo',
  'retention set': 'gf retention set --keep 5 --project ./demo',
  'chain list': 'gf chain list --project ./demo --json',
  'chain show': 'gf chain show demo-clean-completion --project ./demo',
  'chain verify': 'gf chain verify --all --project ./demo --json',
  doctor: 'gf doctor --project ./demo',
  'ontology adopt': 'gf ontology adopt ontology.yaml --mode advisory --project ./demo',
  'ontology clear': 'gf ontology clear --project ./demo',
  'ontology show': 'gf ontology show --project ./demo --json',
  'config show': 'gf config show --project ./demo --json',
};

/** Adds `Example:` help text to every command listed in `COMMAND_EXAMPLES`. */
export function addExamples(program: Command): void {
  const walk = (cmd: Command, path: readonly string[]): void => {
    for (const sub of cmd.commands) {
      const p = [...path, sub.name()];
      const example = COMMAND_EXAMPLES[p.join(' ')];
      if (example !== undefined) {
        sub.addHelpText('after', `\nExample:\n  ${example}\n`);
      }
      walk(sub, p);
    }
  };
  walk(program, []);
}
