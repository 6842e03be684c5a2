// Preload (sandboxed, context-isolated): the renderer's only door to main.
import { exposeInvoke } from '../ipc/preload-bridge';

exposeInvoke();
