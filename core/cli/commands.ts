import { registerCanonicalCommands } from './canonical-command';
import { registerChainCommands } from './chain-command';
import { registerCheckpointCommands } from './checkpoint-command';
import { registerDiffCommand } from './diff-command';
import { registerDoctorCommand } from './doctor-command';
import { registerHistoryCommands } from './history-command';
import { registerGraphCommands } from './graph-command';
import type { CommandRegistrar } from './io';
import { registerOntologyCommands } from './ontology-command';
import { registerProjectCommands } from './project-command';
import { registerRevertCommand } from './revert-command';
import { registerServeCommand } from './serve-command';
import { registerThreadsCommands } from './threads-command';

/** Every subcommand group of `gf`, in help order. Add a module's registrar here. */
export const COMMANDS: readonly CommandRegistrar[] = [registerCanonicalCommands, registerServeCommand, registerProjectCommands, registerCheckpointCommands, registerDiffCommand, registerRevertCommand, registerOntologyCommands, registerHistoryCommands, registerGraphCommands, registerChainCommands, registerThreadsCommands, registerDoctorCommand];
