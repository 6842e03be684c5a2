// Mounts the app (loaded by the entry chunk after it started the boot calls).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';

/** Renders the app into #root. */
export function mount(): void {
  const root = document.getElementById('root');
  if (root !== null) createRoot(root).render(<StrictMode><App /></StrictMode>);
}
