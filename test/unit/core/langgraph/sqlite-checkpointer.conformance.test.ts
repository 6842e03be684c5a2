import { runPortConformance } from './conformance';
import { sqliteInitializer } from './conformance/sqlite-initializer';

runPortConformance(sqliteInitializer());
