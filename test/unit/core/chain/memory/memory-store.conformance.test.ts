import { InMemoryCheckpointStore } from '../../../../../core/chain/memory/memory-store';
import { runChainConformance } from '../conformance';

runChainConformance({
  name: 'in-memory',
  create: async ({ clock }) => new InMemoryCheckpointStore({ clock }),
  tamper: async (store, workflowId, sequence, fields) => store.tamperPersistedRow(workflowId, sequence, fields),
});
