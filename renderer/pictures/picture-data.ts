// What a picture drew, kept on its element for tests and assistive tools:
// the exact ids handed to the renderer (uPlot marks, sigma's graph), so a
// test compares the engine's answer with the picture through data, never
// through pixels.

/** The property of a picture's root element holding what it drew. */
export const PICTURE_DATA_KEY = '__gfPicture';

/** What a graph picture drew: node and edge ids (the graph handed to sigma), and whether layout finished. */
export interface GraphPictureData {
  readonly kind: 'graph';
  readonly nodes: readonly string[];
  readonly edges: readonly string[];
  /** Node id → change kind (`added`, `removed`, `modified`) for a diff graph; unchanged context nodes are absent. */
  readonly changes: Readonly<Record<string, string>>;
  readonly drawn: boolean;
}

/** What the timeline drew: one mark per lineage entry, and the revert arcs. */
export interface TimelinePictureData {
  readonly kind: 'timeline';
  readonly marks: readonly { readonly generation_uuid: string; readonly seq: number; readonly hollow: boolean; readonly flags: readonly string[]; readonly changed: number }[];
  readonly arcs: readonly { readonly from: string; readonly to: string; readonly checkpoint: string | null }[];
  readonly drawn: boolean;
}

/** Any picture's data. */
export type PictureData = GraphPictureData | TimelinePictureData;

/** Keeps `data` on `el` (see PICTURE_DATA_KEY). */
export function setPictureData(el: HTMLElement | null, data: PictureData): void {
  if (el !== null) (el as unknown as Record<string, PictureData>)[PICTURE_DATA_KEY] = data;
}

/** A CSS custom property of the page's theme (light or dark), with a fallback. */
export function themeColour(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v === '' ? fallback : v;
}
