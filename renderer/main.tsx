// Renderer entry: captures the bridge token, then mounts the app.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { captureToken } from './invoke';

captureToken();
const root = document.getElementById('root');
if (root !== null) createRoot(root).render(<StrictMode><App /></StrictMode>);
