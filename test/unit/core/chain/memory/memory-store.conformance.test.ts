import { InMemoryChainStore } from '../../../../../core/chain/memory/memory-store';
import { runChainConformance } from '../conformance';

runChainConformance({
  name: 'in-memory',
  create: async ({ clock }) => new InMemoryChainStore({ clock }),
  tamper: async (store, workflowId, sequence, fields) => store.tamperPersistedRow(workflowId, sequence, fields),
});
