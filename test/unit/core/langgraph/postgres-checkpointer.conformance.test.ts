import { runPortConformance } from './conformance';
import { postgresInitializer } from './conformance/postgres-initializer';

runPortConformance(postgresInitializer());
