import { runChainConformance } from '../conformance';
import { postgresInitializer } from './postgres-initializer';

runChainConformance(postgresInitializer());
