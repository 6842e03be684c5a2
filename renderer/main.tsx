// Renderer entry (a small chunk): starts the launch's first engine calls at
// once, then loads the app chunk (React, Arrow, the screens) and mounts it, so
// the calls and the chunk's parse overlap.
import { startBoot } from './boot';

void startBoot().catch(() => undefined);
void import('./mount').then((m) => m.mount());
